package engine_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// brokenStore is a store whose writes fail, as a full disk makes them
// fail, while broken is set.
type brokenStore struct {
	albedo.Store
	broken atomic.Bool
}

// errDiskFull is what brokenStore's writes fail with.
var errDiskFull = albedo.Errorf(albedo.EStoreUnavailable, "the disk holding ALBEDO_HOME is full; nothing of the change was stored")

// Commit fails while the store is broken.
func (b *brokenStore) Commit(ctx context.Context, change albedo.Commit) (albedo.Committed, error) {
	if b.broken.Load() {
		return albedo.Committed{}, errDiskFull
	}
	return b.Store.Commit(ctx, change)
}

// A turn that cannot store what follows the user's message ends in memory
// at once: subscribers see why in live events, the session is not left
// running, what was committed stays, and the session works again once the
// store does; the end of the failed turn is recorded then.
func TestTurnWhoseStoreFailsEndsAndTheSessionRecovers(t *testing.T) {
	store := &brokenStore{}
	var r *rig
	r = newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		if lastUserText(r.t, req.Input) == "break" {
			store.broken.Store(true) // the disk fills while the model answers
		}
		return fakes.Text("answer")
	})
	store.Store = r.store
	r.useStore(store)
	sess := r.session("")
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	r.send(sess.ID, "break")
	var live []albedo.Event
	for ev := range sub.Events {
		live = append(live, ev)
		if ev.Type == wire.EventStatus && ev.Running != nil && !*ev.Running {
			break
		}
	}
	var errors []string
	for _, ev := range live {
		if ev.Type == wire.EventError {
			errors = append(errors, ev.Text)
		}
	}
	if len(errors) == 0 || !strings.Contains(strings.Join(errors, "\n"), "the disk holding ALBEDO_HOME is full") {
		t.Errorf("live error events = %q, want one naming the full disk", errors)
	}
	if running, err := r.svc.Running(r.ctx, sess.ID); err != nil || running {
		t.Errorf("Running = %v, %v; the turn must be over in memory", running, err)
	}

	// A message while the store still fails is refused with the cause.
	_, err = r.svc.Send(r.ctx, sess.ID, albedo.Message{Text: "still full?"})
	wantCode(t, err, albedo.EStoreUnavailable)

	store.broken.Store(false)
	r.turn(sess.ID, "again")
	items := r.history(sess.ID)
	var texts []string
	for _, it := range items {
		switch it.Kind {
		case albedo.KindUser, albedo.KindAssistant, albedo.KindTurn:
			texts = append(texts, string(it.Kind)+":"+it.Text)
		case albedo.KindError:
			texts = append(texts, string(it.Kind)+":"+strings.SplitN(it.Text, ":", 2)[0])
		}
	}
	// The history says why the failed turn ended, once it can.
	want := []string{"user:break", "error:albedo could not record the end of this turn", "turn:" + albedo.TurnFailed, "user:again", "assistant:answer", "turn:" + albedo.TurnFinished}
	if strings.Join(texts, " | ") != strings.Join(want, " | ") {
		t.Errorf("history = %q, want %q", texts, want)
	}
	if got := r.get(sess.ID).Stage; got != albedo.StageIdle {
		t.Errorf("stage = %s, want idle", got)
	}
}
