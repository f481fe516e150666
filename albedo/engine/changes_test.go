package engine_test

import (
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// nextEvent returns the subscription's next event.
func nextEvent(t *testing.T, sub *engine.Subscription) albedo.Event {
	t.Helper()
	select {
	case ev, ok := <-sub.Events:
		if !ok {
			t.Fatal("the subscription ended")
		}
		return ev
	case <-time.After(waitLimit):
		t.Fatal("no event came")
		return albedo.Event{}
	}
}

func TestAnotherProcesssCommitsReachSubscribersOnceAndInOrder(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	changes := fakes.NewChanges()
	r.tune = func(o *engine.Options) { o.Changes = changes }
	r.svc = r.newService()
	sess := r.session(respProvider)
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	// Another process runs a turn: its commits land in the shared store.
	args := `{"code":"print(1)"}`
	commit := func(items ...albedo.Item) int64 {
		t.Helper()
		done, err := r.store.Commit(r.ctx, albedo.Commit{SessionID: sess.ID, Items: items})
		if err != nil {
			t.Fatal(err)
		}
		return done.Items[len(done.Items)-1].Seq
	}
	call := albedo.Item{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: args, Protocol: albedo.ProtocolResponses, Timestamp: 1}
	changes.Tell(sess.ID, commit(albedo.Item{Kind: albedo.KindUser, Text: "go", Timestamp: 1}, call))
	res := albedo.CellResult{Status: albedo.CellOK, Output: "1\n"}
	changes.Tell(sess.ID, commit(albedo.Item{Kind: albedo.KindToolOutput, CallID: "c1", ToolName: "python", Text: string(albedo.MustJSON(res)), Result: &res, Timestamp: 2}))
	want := []albedo.ItemKind{albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput}
	var last int64
	for i, kind := range want {
		ev := nextEvent(t, sub)
		if ev.Seq != last+1 || ev.Type != string(kind) && !(kind == albedo.KindToolOutput && ev.Type == "tool") {
			t.Fatalf("event %d = %s seq %d; want %s seq %d", i, ev.Type, ev.Seq, kind, last+1)
		}
		if kind == albedo.KindToolOutput && ev.Code != "print(1)" {
			t.Errorf("the output's event shows code %q, want the call's", ev.Code)
		}
		last = ev.Seq
	}

	// Word told twice, or late, sends nothing twice; word lost is made
	// up for when the watcher says it lapsed.
	changes.Tell(sess.ID, 1)
	changes.Tell(sess.ID, last)
	commit(albedo.Item{Kind: albedo.KindAssistant, Text: "unheard", Timestamp: 3})
	changes.Lapse()
	if ev := nextEvent(t, sub); ev.Seq != last+1 || ev.Text != "unheard" {
		t.Fatalf("after the lapse came %+v; want the unheard item at seq %d", ev, last+1)
	}
}

func TestAnInterruptAskedOfAnotherProcessStopsTheTurnHere(t *testing.T) {
	r := newRig(t, script(fakes.Text("done"), fakes.Python("while True: pass")))
	changes := fakes.NewChanges()
	r.tune = func(o *engine.Options) { o.Changes = changes }
	r.svc = r.newService()
	r.kernel.BlockUntilCancelled()
	sess := r.session(respProvider)
	r.send(sess.ID, "go")
	waitFor(t, "the cell to start", func() bool { return len(r.kernel.Cells()) == 1 })

	// Another daemon, asked to interrupt the session, says so.
	if err := changes.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)
	items := r.history(sess.ID)
	if last := items[len(items)-1]; last.Kind != albedo.KindTurn || last.Text != albedo.TurnInterrupted {
		t.Fatalf("the turn ended with %+v, want interrupted", last)
	}
	if got := r.get(sess.ID); got.Stage != albedo.StageIdle {
		t.Errorf("stage = %s, want idle: the daemon that was asked waits for it", got.Stage)
	}
}

// TestCommitsUnheardOfReachSubscribersBeforeTheTurnThatFollowsThem covers
// word of another process's commits lost (its listener was cut off while
// the store was out of reach): the process that takes the session's lease
// next publishes them to its subscribers before its own turn's events, so
// their cursor never passes them.
func TestCommitsUnheardOfReachSubscribersBeforeTheTurnThatFollowsThem(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	table := fakes.NewLeaseTable(testLeaseTTL, r.store)
	r.tune = func(o *engine.Options) {
		o.Store = table.Fence(r.store)
		o.Leases = table.Owner("a")
		o.Changes = fakes.NewChanges()
	}
	r.svc = r.newService()
	sess := r.session(respProvider)
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	durable := func(until albedo.ItemKind) []albedo.Event {
		t.Helper()
		var got []albedo.Event
		for {
			ev := nextEvent(t, sub)
			if ev.Seq == 0 {
				continue
			}
			got = append(got, ev)
			if ev.Type == string(until) {
				return got
			}
		}
	}
	r.send(sess.ID, "here")
	first := durable(albedo.KindTurn)
	r.waitIdle(sess.ID)

	// Another process runs a turn; no word of it comes.
	other := table.Owner("b")
	lease, ok, err := other.Take(r.ctx, sess.ID)
	if err != nil || !ok {
		t.Fatalf("b takes the lease: %v, %v", ok, err)
	}
	shared := table.Fence(r.store)
	if _, err := shared.Commit(r.ctx, albedo.Commit{SessionID: sess.ID, Lease: &lease, Items: []albedo.Item{
		{Kind: albedo.KindUser, Text: "elsewhere", Timestamp: 1},
		{Kind: albedo.KindAssistant, Text: "answered elsewhere", Protocol: albedo.ProtocolResponses, Timestamp: 2},
		{Kind: albedo.KindTurn, Text: string(albedo.TurnFinished), Timestamp: 3},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := other.Release(r.ctx, lease); err != nil {
		t.Fatal(err)
	}

	r.send(sess.ID, "here again")
	r.waitIdle(sess.ID)
	events := append(first, durable(albedo.KindTurn)...)
	events = append(events, durable(albedo.KindTurn)...)
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			t.Fatalf("durable event %d has seq %d (%s %q); want every seq once, in order", i, ev.Seq, ev.Type, ev.Text)
		}
	}
	if events[len(first)].Text != "elsewhere" {
		t.Fatalf("after this process's first turn came %+v; want the other process's user message", events[len(first)])
	}
}
