package engine_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// heldSummary answers as fullOnce does, but holds every summary request
// open (until it is cancelled) while hold is set.
type heldSummary struct {
	fullOnce
	mu   sync.Mutex
	hold bool
}

func (h *heldSummary) holding(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hold = on
}

func (h *heldSummary) script(t fataler) func(albedo.ModelRequest) fakes.Reply {
	inner := h.fullOnce.script(t, false)
	return func(req albedo.ModelRequest) fakes.Reply {
		h.mu.Lock()
		hold := h.hold
		h.mu.Unlock()
		if hold && isSummary(t, req) {
			return fakes.Hang()
		}
		return inner(req)
	}
}

// waitSummaryOpen waits until the provider's last request is a summary.
func (r *rig) waitSummaryOpen(t *testing.T) {
	t.Helper()
	waitFor(t, "the summary request", func() bool {
		reqs := r.provider.Requests()
		return len(reqs) > 0 && isSummary(t, reqs[len(reqs)-1])
	})
}

func TestInterruptDuringForcedCompactionChangesNothing(t *testing.T) {
	h := &heldSummary{hold: true}
	r := newRig(t, h.script(t))
	sess := r.sessionAfter(respProvider, "first", "second")
	before := r.history(sess.ID)
	r.send(sess.ID, "third")
	r.waitSummaryOpen(t)
	if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)

	r.wantNothingCompacted(sess.ID, "after an interrupt")
	after := r.history(sess.ID)
	if last := after[len(after)-1]; last.Kind != albedo.KindTurn || last.Text != albedo.TurnInterrupted {
		t.Errorf("the turn ended with %+v; want interrupted", last)
	}
	if len(after) != len(before)+2 {
		t.Errorf("history = %v; want the earlier items, the message and the interrupted marker", kinds(after))
	}
	r.wantNotCompacting(sess.ID, "after the interrupt")
}

// restart closes the rig's service as albedo stops, and makes another over
// the same store, as the next start would have, with its turns recovered.
func (r *rig) restart(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := r.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r.svc = r.newService()
	if _, err := r.svc.Recover(r.ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCompactionCutShortByAStopIsDoneAgainOnResume(t *testing.T) {
	for _, tt := range []struct {
		name  string
		start func(r *rig, id string)
		// turn is whether the resumed session then runs a turn.
		turn bool
	}{
		{"forced, in a turn", func(r *rig, id string) { r.send(id, "third") }, true},
		{"by /compact", func(r *rig, id string) {
			if _, err := r.svc.RunCommand(r.ctx, id, "/compact", nil); err != nil {
				r.t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &heldSummary{hold: true}
			r := newRig(t, h.script(t))
			sess := r.sessionAfter(respProvider, "first", "second")
			tt.start(r, sess.ID)
			r.waitSummaryOpen(t)
			if got := r.get(sess.ID); got.Compacting == "" || got.Stage != albedo.StageRunning {
				t.Fatalf("while the summary is open: compacting %q, stage %s; want both stored", got.Compacting, got.Stage)
			}
			h.holding(false)
			before := r.provider.RequestCount()
			r.restart(t)
			r.waitIdle(sess.ID)

			reqs := r.provider.Requests()[before:]
			if len(reqs) == 0 || !isSummary(t, reqs[0]) {
				t.Fatalf("after the restart, %d requests; want the summary asked again first", len(reqs))
			}
			for _, q := range reqs[1:] {
				if isSummary(t, q) {
					t.Error("the summary was asked for more than once after the restart")
				}
				if users := userTexts(t, q.Input); !strings.HasPrefix(users[0], compaction.SummaryPrefix) {
					t.Errorf("a request after the resumed compaction starts with %q", users[0])
				}
			}
			if tt.turn != (len(reqs) > 1) {
				t.Errorf("%d turn requests after the resumed compaction; want a turn: %v", len(reqs)-1, tt.turn)
			}
			items := r.history(sess.ID)
			if evs := compactionEvents(displayEvents(items)); len(evs) != 1 {
				t.Errorf("compaction events = %d; want 1", len(evs))
			}
			if _, err := r.store.Compaction(r.ctx, sess.ID); err != nil {
				t.Errorf("no compaction state: %v", err)
			}
			r.wantNotCompacting(sess.ID, "after the resumed compaction")
			restarts := 0
			for _, it := range ofKind(items, albedo.KindUser) {
				if it.Source == albedo.RestartSource {
					restarts++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tt.turn]; restarts != want {
				t.Errorf("restart notes = %d; want %d", restarts, want)
			}
			checkPaired(t, items)
		})
	}
}

// dyingStore stops writing, as albedo dying does, right after the commit
// that stores a compaction state.
type dyingStore struct {
	albedo.Store
	dead atomic.Bool
}

func (d *dyingStore) Commit(ctx context.Context, change albedo.Commit) (albedo.Committed, error) {
	if d.dead.Load() {
		return albedo.Committed{}, albedo.Errorf(albedo.EStoreUnavailable, "albedo died")
	}
	done, err := d.Store.Commit(ctx, change)
	if err == nil && change.Compaction != nil {
		d.dead.Store(true)
	}
	return done, err
}

// A crash after a /compact stored its state but before it marked the
// session idle: the session is still stored compacting, and the next start
// finds nothing left to compact, asks nothing and runs no turn.
func TestCompactCutShortAfterItsStateWasStoredJustEnds(t *testing.T) {
	r := newRig(t, neverTooLarge(t))
	dying := &dyingStore{Store: r.store}
	r.useStore(dying)
	sess := r.session(respProvider)
	r.turn(sess.ID, "first")
	r.turn(sess.ID, "second")
	if _, err := r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)
	if !dying.dead.Load() {
		t.Fatal("the compaction stored no state")
	}
	stored, err := r.store.Session(r.ctx, sess.ID)
	if err != nil || stored.Stage != albedo.StageRunning || stored.Compacting != albedo.CompactManual {
		t.Fatalf("as the crash left it: %+v, %v; want running its /compact", stored, err)
	}
	before, items := r.provider.RequestCount(), len(r.history(sess.ID))
	r.restart(t)
	r.waitIdle(sess.ID)
	if n := r.provider.RequestCount() - before; n != 0 {
		t.Errorf("the resumed /compact made %d requests; want none", n)
	}
	if after := r.history(sess.ID); len(after) != items {
		t.Errorf("history grew by %v", kinds(after[items:]))
	}
	r.wantNotCompacting(sess.ID, "after the resumed /compact")
}
