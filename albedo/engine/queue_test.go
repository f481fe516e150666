package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// TestQueuedMessages: messages sent while a turn runs wait in the queue
// and join its next model request, in order, after the cell's output; an
// interrupt leaves them waiting, to be sent now, taken along by a new
// message, or dropped one by one.
func TestQueuedMessages(t *testing.T) {
	tests := []struct {
		name string
		// interrupt stops the turn while its cell runs, instead of letting
		// the cell finish.
		interrupt bool
		// drop are the queued messages dropped, by text (after the
		// interrupt, if any).
		drop []string
		// then runs after that on an interrupted turn: "" sends the
		// queue now, any other text is a new message.
		then string
		// sendErr is the error code of sending the queue now, "" for none.
		sendErr string
		// want are the user messages that end the request that took the
		// queue, in order; nil when no request took it.
		want []string
	}{
		{name: "sent while busy, they join the next request", want: []string{"first aside", "second aside"}},
		{name: "one dropped while busy, the other joins", drop: []string{"first aside"}, want: []string{"second aside"}},
		{name: "every one dropped while busy, the turn goes on without them", drop: []string{"first aside", "second aside"}, want: []string{}},
		{name: "left by an interrupt, sent now", interrupt: true, want: []string{"first aside", "second aside"}},
		{name: "left by an interrupt, one dropped, the rest sent", interrupt: true, drop: []string{"second aside"}, want: []string{"first aside"}},
		{name: "left by an interrupt and all dropped: nothing to send", interrupt: true, drop: []string{"first aside", "second aside"}, sendErr: albedo.EInvalid},
		{name: "left by an interrupt, a new message takes them along", interrupt: true, then: "and this", want: []string{"first aside", "second aside", "and this"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("all done"), fakes.Python("slow()")))
			gate := fakes.NewGate()
			r.kernel.SetGate(gate)
			sess := r.session("")
			sub, err := r.svc.Subscribe(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			r.send(sess.ID, "start")
			<-gate.Entered()
			for _, text := range []string{"first aside", "second aside"} {
				if !r.send(sess.ID, text) {
					t.Fatalf("%q sent during a cell was not queued", text)
				}
			}
			if tc.interrupt {
				if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
					t.Fatal(err)
				}
				if got := queuedTexts(r, sess.ID); !slices.Equal(got, []string{"first aside", "second aside"}) {
					t.Fatalf("queue after the interrupt = %q, want both messages still waiting", got)
				}
			}
			var dropped []int64
			for _, text := range tc.drop {
				id := queuedID(r, sess.ID, text)
				if err := r.svc.DropQueued(r.ctx, sess.ID, id); err != nil {
					t.Fatalf("drop %q: %v", text, err)
				}
				dropped = append(dropped, id)
				// It is gone: dropping it again finds nothing.
				wantCode(t, r.svc.DropQueued(r.ctx, sess.ID, id), albedo.ENotFound)
			}
			waitUnqueued(t, sub, dropped)
			switch {
			case !tc.interrupt:
				gate.Open()
			case tc.then != "":
				r.kernel.SetGate(nil)
				if r.send(sess.ID, tc.then) {
					t.Fatalf("%q sent to an idle session was queued", tc.then)
				}
			default:
				r.kernel.SetGate(nil)
				started, err := r.svc.SendQueued(r.ctx, sess.ID)
				if tc.sendErr != "" {
					wantCode(t, err, tc.sendErr)
					break
				}
				if err != nil || !started {
					t.Fatalf("SendQueued = %v, %v; want a turn started", started, err)
				}
			}
			r.waitIdle(sess.ID)

			reqs := r.provider.Requests()
			if tc.want == nil {
				if len(reqs) != 1 {
					t.Errorf("%d requests, want only the first: nothing was left to send", len(reqs))
				}
			} else {
				if len(reqs) != 2 {
					t.Fatalf("%d requests, want 2", len(reqs))
				}
				if got := trailingUserTexts(t, reqs[1]); !slices.Equal(got, tc.want) {
					t.Errorf("the request after the cell ends with the user messages %q, want %q", got, tc.want)
				}
			}
			if got := queuedTexts(r, sess.ID); len(got) != 0 {
				t.Errorf("queue at the end = %q, want it empty", got)
			}
			for _, it := range ofKind(r.history(sess.ID), albedo.KindUser) {
				for _, text := range tc.drop {
					if it.Text == text {
						t.Errorf("the dropped message %q reached the transcript", text)
					}
				}
			}
		})
	}
}

func TestQueueRefusals(t *testing.T) {
	r := newRig(t, script(fakes.Text("all done"), fakes.Python("slow()")))
	gate := fakes.NewGate()
	r.kernel.SetGate(gate)
	sess := r.session("")
	tests := []struct {
		name string
		err  func() error
		code string
	}{
		{"sending an empty queue", func() error { _, err := r.svc.SendQueued(r.ctx, sess.ID); return err }, albedo.EInvalid},
		{"sending the queue of no session", func() error { _, err := r.svc.SendQueued(r.ctx, "nope"); return err }, albedo.ENotFound},
		{"dropping a message never queued", func() error { return r.svc.DropQueued(r.ctx, sess.ID, 12345) }, albedo.ENotFound},
		{"dropping from no session", func() error { return r.svc.DropQueued(r.ctx, "nope", 1) }, albedo.ENotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantCode(t, tc.err(), tc.code) })
	}

	// A busy session takes its queue at its next request anyway: sending
	// it now starts nothing.
	r.send(sess.ID, "start")
	<-gate.Entered()
	r.send(sess.ID, "aside")
	if started, err := r.svc.SendQueued(r.ctx, sess.ID); err != nil || started {
		t.Errorf("SendQueued on a busy session = %v, %v; want nothing started", started, err)
	}
	gate.Open()
	r.waitIdle(sess.ID)
	if got := trailingUserTexts(t, r.provider.Requests()[1]); !slices.Equal(got, []string{"aside"}) {
		t.Errorf("the request after the cell ends with %q, want the aside", got)
	}
}

// queuedTexts lists the texts waiting in a session's queue, in order.
func queuedTexts(r *rig, id string) []string {
	r.t.Helper()
	queued, err := r.store.Queued(r.ctx, id)
	if err != nil {
		r.t.Fatalf("queued: %v", err)
	}
	texts := []string{}
	for _, q := range queued {
		texts = append(texts, q.Text)
	}
	return texts
}

// queuedID returns the queue id of a waiting message.
func queuedID(r *rig, id, text string) int64 {
	r.t.Helper()
	queued, err := r.store.Queued(r.ctx, id)
	if err != nil {
		r.t.Fatalf("queued: %v", err)
	}
	for _, q := range queued {
		if q.Text == text {
			return q.ID
		}
	}
	r.t.Fatalf("%q is not queued", text)
	return 0
}

// waitUnqueued waits for the unqueued event of each dropped message.
func waitUnqueued(t *testing.T, sub *engine.Subscription, ids []int64) {
	t.Helper()
	want := map[int64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	deadline := time.After(waitLimit)
	for len(want) > 0 {
		select {
		case ev := <-sub.Events:
			if ev.Type == wire.EventUnqueued {
				delete(want, ev.QueueID)
			}
		case <-deadline:
			t.Fatalf("no unqueued event for %v", want)
		}
	}
}

// trailingUserTexts returns the texts of the user messages that end a
// request, in order; albedo's own notes appended to a text are left out.
func trailingUserTexts(t *testing.T, req albedo.ModelRequest) []string {
	t.Helper()
	in := decodeInput(t, req.Input)
	texts := []string{}
	for i := len(in) - 1; i >= 0 && in[i].Role == "user"; i-- {
		text, _, _ := strings.Cut(in[i].text(), "<system-note")
		texts = append([]string{strings.TrimSpace(text)}, texts...)
	}
	return texts
}
