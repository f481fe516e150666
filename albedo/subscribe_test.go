package albedo_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
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
		if ev.Type == albedo.EventStatus && ev.Running != nil && !*ev.Running {
			return out
		}
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
	if want := albedo.Events(r.history(sess.ID)); !slices.EqualFunc(sub.Snapshot, want, sameEvents) {
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

	if first := live[0]; first.Type != albedo.EventStatus || first.Running == nil || !*first.Running {
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
		case ev.Type == albedo.EventQueued && ev.Text == "aside":
			queuedAt = i
		case ev.Type == albedo.EventUser && ev.Text == "aside":
			asideAt = i
		case ev.Type == albedo.EventDelta && ev.Kind == string(albedo.DeltaReasoning) && ev.Text == "plan":
			sawReasoningDelta = true
		case ev.Type == albedo.EventTool && ev.Code != "print(2)":
			t.Errorf("live tool event has code %q", ev.Code)
		}
	}
	if queuedAt < 0 || asideAt < queuedAt {
		t.Errorf("queued event at %d, its user event at %d", queuedAt, asideAt)
	}
	if !sawReasoningDelta {
		t.Error("no reasoning delta was streamed")
	}
	want := albedo.Events(r.history(sess.ID))[lastSnap:]
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
	r.send(sess.ID, "go")
	var subs []*albedo.Subscription
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
			t.Cleanup(sub.Close)
			subs = append(subs, sub)
		}
		if !running {
			break
		}
		time.Sleep(50 * time.Microsecond)
	}
	items := r.history(sess.ID)
	total := int64(len(items))
	if len(subs) < 2 {
		t.Fatalf("only %d subscriptions", len(subs))
	}
	for i, sub := range subs {
		var seqs []int64
		for _, ev := range sub.Snapshot {
			seqs = append(seqs, ev.Seq)
		}
		for len(seqs) == 0 || seqs[len(seqs)-1] < total {
			ev, ok := next(t, sub.Events)
			if !ok {
				t.Fatalf("subscription %d closed at seqs %v", i, seqs)
			}
			if ev.Seq != 0 {
				seqs = append(seqs, ev.Seq)
			}
		}
		for j, seq := range seqs {
			if seq != int64(j+1) {
				t.Fatalf("subscription %d (snapshot of %d) saw seqs %v: duplicate or gap at %d", i, len(sub.Snapshot), seqs, j)
			}
		}
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
