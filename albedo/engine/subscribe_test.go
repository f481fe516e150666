package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// next receives one event or fails after waitLimit; ok is false when the
// channel closed.
func next(t *testing.T, ch <-chan albedo.Event) (albedo.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(waitLimit):
		t.Fatal("timed out waiting for an event")
		return albedo.Event{}, false
	}
}

// collectTurn reads events until the session reports it stopped running.
func collectTurn(t *testing.T, ch <-chan albedo.Event) []albedo.Event {
	t.Helper()
	var out []albedo.Event
	for {
		ev, ok := next(t, ch)
		if !ok {
			t.Fatalf("subscription closed early after %+v", out)
		}
		out = append(out, ev)
		if ev.Type == wire.EventStatus && ev.Running != nil && !*ev.Running {
			return out
		}
	}
}

// settle waits until sentinel, subscribed before the turn began, sees the
// turn end, then subscribes once more: that takes the hub's lock, so every
// publication that began before has reached every subscriber's buffer.
func settle(t *testing.T, r *rig, id string, sentinel *engine.Subscription) {
	t.Helper()
	collectTurn(t, sentinel.Events)
	sentinel.Close()
	barrier, err := r.svc.Subscribe(r.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	barrier.Close()
}

// durableSeqs returns the seqs of a subscription's snapshot followed by
// those of the live events already buffered, and closes it.
func durableSeqs(sub *engine.Subscription) []int64 {
	var seqs []int64
	for _, ev := range sub.Snapshot {
		if ev.Seq != 0 { // a queued message is shown, not yet durable
			seqs = append(seqs, ev.Seq)
		}
	}
	for {
		select {
		case ev := <-sub.Events:
			if ev.Seq != 0 {
				seqs = append(seqs, ev.Seq)
			}
		default:
			sub.Close()
			return seqs
		}
	}
}

// wantSeqs fails unless seqs is exactly 1..total.
func wantSeqs(t *testing.T, what string, seqs []int64, total int64) {
	t.Helper()
	ok := int64(len(seqs)) == total
	for j, seq := range seqs {
		ok = ok && seq == int64(j+1)
	}
	if !ok {
		t.Fatalf("%s saw seqs %v, want 1..%d", what, seqs, total)
	}
}

func sameEvents(a, b albedo.Event) bool { return a.Seq == b.Seq && a.Type == b.Type }

func TestSubscribeSnapshotThenLive(t *testing.T) {
	r := newRig(t, script(fakes.Text("second answer"), fakes.Text("first answer"), fakes.Python("print(2)").WithReasoning("plan")))
	sess := r.session("")
	r.turn(sess.ID, "one")

	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if want := displayEvents(r.history(sess.ID)); !slices.EqualFunc(sub.Snapshot, want, sameEvents) {
		t.Fatalf("snapshot = %+v, want %+v", sub.Snapshot, want)
	}
	lastSnap := sub.Snapshot[len(sub.Snapshot)-1].Seq

	gate := fakes.NewGate()
	r.kernel.SetGate(gate)
	r.send(sess.ID, "two")
	<-gate.Entered()
	if !r.send(sess.ID, "aside") {
		t.Fatal("aside was not queued")
	}
	gate.Open()
	live := collectTurn(t, sub.Events)
	r.waitIdle(sess.ID)

	if first := live[0]; first.Type != wire.EventStatus || first.Running == nil || !*first.Running {
		t.Errorf("first live event = %+v, want status running", first)
	}
	var durable []albedo.Event
	queuedAt, asideAt := -1, -1
	sawReasoningDelta := false
	for i, ev := range live {
		if ev.Seq != 0 {
			durable = append(durable, ev)
		}
		switch {
		case ev.Type == wire.EventQueued && ev.Text == "aside":
			queuedAt = i
		case ev.Type == wire.EventUser && ev.Text == "aside":
			asideAt = i
		case ev.Type == wire.EventDelta && ev.Kind == string(albedo.DeltaReasoning) && ev.Text == "plan":
			sawReasoningDelta = true
		case ev.Type == wire.EventTool && ev.Code != "print(2)":
			t.Errorf("live tool event has code %q", ev.Code)
		}
	}
	if queuedAt < 0 || asideAt < queuedAt {
		t.Errorf("queued event at %d, its user event at %d", queuedAt, asideAt)
	}
	if !sawReasoningDelta {
		t.Error("no reasoning delta was streamed")
	}
	want := displayEvents(r.history(sess.ID))[lastSnap:]
	if !slices.EqualFunc(durable, want, sameEvents) {
		t.Errorf("live durable events = %+v\nwant %+v", durable, want)
	}
}

func TestSubscribeDuringTurnHasNoDuplicatesOrGaps(t *testing.T) {
	const rounds = 40
	r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		if strings.Count(strings.Join(rawStrings(req.Input), ""), `"function_call_output"`) < rounds {
			return fakes.Python("step()").WithReasoning("again")
		}
		return fakes.Text("end")
	})
	sess := r.session("")
	sentinel, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	r.send(sess.ID, "go")
	var subs []*engine.Subscription
	seen := -1
	for {
		running, err := r.svc.Running(r.ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n := r.provider.RequestCount() + len(r.kernel.Cells()); n != seen || !running {
			seen = n
			sub, err := r.svc.Subscribe(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, sub)
		}
		if !running {
			break
		}
		time.Sleep(50 * time.Microsecond)
	}
	settle(t, r, sess.ID, sentinel)
	if len(subs) < 2 {
		t.Fatalf("only %d subscriptions", len(subs))
	}
	total := int64(len(r.history(sess.ID)))
	for i, sub := range subs {
		n := len(sub.Snapshot)
		wantSeqs(t, fmt.Sprintf("subscription %d (snapshot of %d)", i, n), durableSeqs(sub), total)
	}
}

func rawStrings(in []json.RawMessage) []string {
	out := make([]string, len(in))
	for i, m := range in {
		out[i] = string(m)
	}
	return out
}

func TestSlowSubscriberIsDropped(t *testing.T) {
	long := strings.Repeat("word ", 1000) // 5000 one-byte deltas: more than any buffer
	r := newRig(t, script(fakes.Text("short"), fakes.Reply{Text: long, DeltaSize: 1}))
	sess := r.session("")
	slow, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	r.turn(sess.ID, "talk a lot")
	n := 0
	for {
		_, ok := next(t, slow.Events)
		if !ok {
			break
		}
		n++
	}
	if n >= len(long) {
		t.Errorf("slow subscriber got all %d events; it should have been dropped", n)
	}
	slow.Close() // closing a dropped subscription is harmless

	again, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(again.Snapshot); got != 3 {
		t.Errorf("new snapshot has %d events, want 3", got)
	}
	r.send(sess.ID, "shorter please")
	live := collectTurn(t, again.Events)
	if len(live) == 0 {
		t.Fatal("no live events")
	}
	again.Close()
	if _, ok := next(t, again.Events); ok {
		t.Error("events after Close")
	}
}

func TestServiceCloseEndsSubscriptions(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session("")
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.svc.Close(r.ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := next(t, sub.Events); ok {
		t.Error("subscription still open after the service closed")
	}
}

// Subscribing just as a turn ends must still see every item: the snapshot
// and the live events together hold each durable event exactly once.
// Subscribers race the end of many short turns.
func TestSubscribeAtTurnEndMissesNothing(t *testing.T) {
	r := newRig(t, script(fakes.Text("ok")))
	const turns, hammers, recent = 50, 3, 8
	for turn := range turns {
		sess := r.session("")
		sentinel, err := r.svc.Subscribe(r.ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var once sync.Once
		halt := func() { once.Do(func() { close(stop) }) }
		t.Cleanup(halt) // stops the hammers if the test fails early
		found := make(chan []*engine.Subscription, hammers)
		for range hammers {
			go func() {
				// Keep the first subscription of each snapshot size and the
				// last few, which raced the end of the turn.
				var kept, last []*engine.Subscription
				size := -1
				for {
					select {
					case <-stop:
						found <- append(kept, last...)
						return
					default:
					}
					sub, err := r.svc.Subscribe(r.ctx, sess.ID)
					switch {
					case err != nil:
					case len(sub.Snapshot) != size:
						size = len(sub.Snapshot)
						kept = append(kept, sub)
					default:
						last = append(last, sub)
						if len(last) > recent {
							last[0].Close()
							last = last[1:]
						}
					}
				}
			}()
		}
		r.send(sess.ID, fmt.Sprintf("message %d", turn))
		settle(t, r, sess.ID, sentinel)
		halt()
		var subs []*engine.Subscription
		for range hammers {
			subs = append(subs, <-found...)
		}
		total := int64(len(r.history(sess.ID)))
		for i, sub := range subs {
			n := len(sub.Snapshot)
			wantSeqs(t, fmt.Sprintf("turn %d, subscription %d of %d (snapshot of %d)", turn, i, len(subs), n), durableSeqs(sub), total)
		}
	}
}

// holdStore holds a Commit that matches hold, after it is stored and
// before it returns, until gate opens: the caller has written the store but
// not yet acted on the result.
type holdStore struct {
	albedo.Store
	gate *fakes.Gate
	hold func(albedo.Commit) bool
}

func (s *holdStore) Commit(ctx context.Context, c albedo.Commit) (albedo.Committed, error) {
	done, err := s.Store.Commit(ctx, c)
	if err == nil && s.hold(c) {
		_ = s.gate.Wait(ctx)
	}
	return done, err
}

// A subscriber that reads the transcript while the turn is between storing
// items and noting them must not make the turn see them twice.
func TestSubscribeBetweenCommitAndCacheDoesNotDuplicate(t *testing.T) {
	tests := []struct {
		name  string
		hold  func(albedo.Commit) bool
		start func(r *rig, id string)
	}{
		{
			name: "delivering a message",
			hold: func(c albedo.Commit) bool { return len(c.Dequeue) > 0 },
			start: func(r *rig, id string) {
				r.send(id, "hello")
			},
		},
		{
			name: "resuming after a restart",
			hold: func(c albedo.Commit) bool {
				return len(c.Items) > 0 && c.Items[len(c.Items)-1].Source == albedo.RestartSource
			},
			start: func(r *rig, id string) {
				sess := r.get(id)
				sess.Stage = albedo.StageRunning
				if _, err := r.store.Commit(r.ctx, albedo.Commit{Session: &sess, Items: []albedo.Item{{Kind: albedo.KindUser, Text: "hello"}}}); err != nil {
					r.t.Fatal(err)
				}
				go func() { _, _ = r.svc.Recover(r.ctx) }()
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("hi")))
			gate := fakes.NewGate()
			held := &holdStore{Store: r.store, gate: gate, hold: tc.hold}
			r.svc = engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: held, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock})
			t.Cleanup(func() { _ = r.svc.Close(context.Background()) })
			sess := r.session("")
			tc.start(r, sess.ID)
			<-gate.Entered()
			sub, err := r.svc.Subscribe(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			sub.Close()
			gate.Open()
			waitFor(t, "the turn to end", func() bool {
				items := r.history(sess.ID)
				return len(items) > 0 && items[len(items)-1].Kind == albedo.KindTurn
			})
			r.waitIdle(sess.ID)

			reqs := r.provider.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			if texts := userTexts(t, reqs[0].Input); len(texts) != len(ofKind(r.history(sess.ID), albedo.KindUser)) {
				t.Errorf("the model was sent user messages %q; the transcript has %d", texts, len(ofKind(r.history(sess.ID), albedo.KindUser)))
			}
			again, err := r.svc.Subscribe(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantSeqs(t, "a later subscription", durableSeqs(again), int64(len(r.history(sess.ID))))
		})
	}
}

// TestSnapshotShowsWaitingMessagesOnce: a message waiting in the queue is in
// the snapshot, and the live queued event of that message is not sent
// again; albedo's own notes are not shown until they are delivered.
func TestSnapshotShowsWaitingMessagesOnce(t *testing.T) {
	gate := fakes.NewGate()
	r := newRig(t, func(albedo.ModelRequest) fakes.Reply { return fakes.Text("done") })
	r.provider.SetGate(gate)
	sess := r.session("")
	if _, err := r.svc.Send(r.ctx, sess.ID, albedo.Message{Text: "first"}); err != nil {
		t.Fatal(err)
	}
	<-gate.Entered()
	if queued, err := r.svc.Send(r.ctx, sess.ID, albedo.Message{Text: "waiting"}); err != nil || !queued {
		t.Fatalf("second message queued = %v, %v", queued, err)
	}
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var shown []string
	for _, ev := range sub.Snapshot {
		if ev.Type == wire.EventQueued {
			shown = append(shown, ev.Text)
		}
	}
	if !slices.Equal(shown, []string{"waiting"}) {
		t.Errorf("snapshot shows queued %v, want [waiting]", shown)
	}
	r.provider.SetGate(nil)
	gate.Open()
	if err := r.svc.Wait(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				return
			}
			if ev.Type == wire.EventQueued {
				t.Errorf("the waiting message was sent live again: %+v", ev)
			}
		default:
			return
		}
	}
}
