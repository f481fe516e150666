package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// itemSeqs returns the seqs of items.
func itemSeqs(items []albedo.Item) []int64 {
	out := []int64{}
	for _, it := range items {
		out = append(out, it.Seq)
	}
	return out
}

// eventSeqs returns the seqs of the durable events.
func eventSeqs(events []albedo.Event) []int64 {
	out := []int64{}
	for _, ev := range events {
		if ev.Seq != 0 {
			out = append(out, ev.Seq)
		}
	}
	return out
}

// longSession makes a session of turns python-call turns: each adds a
// user, a call, its output, an answer and a turn marker (5 items).
func longSession(t *testing.T, turns int) (*rig, string) {
	t.Helper()
	r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		if strings.Contains(string(req.Input[len(req.Input)-1]), "output") {
			return fakes.Text("done")
		}
		return fakes.Python("print(1)")
	})
	sess := r.session("")
	for i := range turns {
		r.turn(sess.ID, fmt.Sprint("turn ", i))
	}
	return r, sess.ID
}

func TestHistoryPages(t *testing.T) {
	r, id := longSession(t, 4)
	all := itemSeqs(r.history(id))
	if len(all) != 20 {
		t.Fatalf("history of %d items, want 20", len(all))
	}
	tests := []struct {
		name               string
		q                  albedo.HistoryQuery
		want               []int64
		wantNext, wantBack int64
	}{
		{"first page", albedo.HistoryQuery{Limit: 5}, all[:5], 5, 1},
		{"next page", albedo.HistoryQuery{After: 5, Limit: 5}, all[5:10], 10, 6},
		{"last page", albedo.HistoryQuery{After: 15, Limit: 5}, all[15:], 0, 16},
		{"a range", albedo.HistoryQuery{After: 2, Before: 6, Limit: 10}, []int64{3, 4, 5}, 0, 3},
		{"a range cut short", albedo.HistoryQuery{After: 2, Before: 9, Limit: 3}, []int64{3, 4, 5}, 5, 3},
		{"newest below before", albedo.HistoryQuery{Before: 21, Limit: 4}, all[16:], 0, 17},
		{"backwards again", albedo.HistoryQuery{Before: 17, Limit: 4}, all[12:16], 0, 13},
		{"backwards to the start", albedo.HistoryQuery{Before: 3, Limit: 4}, all[:2], 0, 1},
		{"nothing past the end", albedo.HistoryQuery{After: 20}, []int64{}, 0, 0},
		{"a limit over 500 is 500", albedo.HistoryQuery{Limit: 10000}, all, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := r.svc.HistoryPage(r.ctx, id, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := itemSeqs(page.Items); !slices.Equal(got, tt.want) {
				t.Errorf("items = %v, want %v", got, tt.want)
			}
			if page.Next != tt.wantNext || page.Before != tt.wantBack {
				t.Errorf("next, before = %d, %d; want %d, %d", page.Next, page.Before, tt.wantNext, tt.wantBack)
			}
		})
	}
	_, err := r.svc.HistoryPage(r.ctx, "nope", albedo.HistoryQuery{})
	wantCode(t, err, albedo.ENotFound)
}

func TestTailReadsOnlyTheLastEvents(t *testing.T) {
	r, id := longSession(t, 3)
	whole := displayEvents(r.history(id))
	for _, n := range []int{0, 1, 3, 7, 15, 100} {
		got, err := r.svc.Tail(r.ctx, id, n)
		if err != nil {
			t.Fatal(err)
		}
		want := whole[max(len(whole)-n, 0):]
		if !slices.EqualFunc(got, want, sameEvents) {
			t.Errorf("Tail(%d) = %+v\nwant %+v", n, got, want)
		}
	}
}

func TestSubscribeFromResumesAndTails(t *testing.T) {
	r, id := longSession(t, 3)
	whole := displayEvents(r.history(id))
	last := whole[len(whole)-1].Seq
	tests := []struct {
		name       string
		opts       albedo.SubscribeOptions
		from       int
		tailed     bool
		wantBefore int64
	}{
		{"whole", albedo.SubscribeOptions{}, 0, false, 0},
		{"after an event", albedo.SubscribeOptions{After: 9}, 9, false, 0},
		{"after the last", albedo.SubscribeOptions{After: last}, len(whole), false, 0},
		{"tailed", albedo.SubscribeOptions{Tail: 4}, len(whole) - 4, true, last - 3},
		{"tailed past the start", albedo.SubscribeOptions{Tail: 100}, 0, true, 0},
		{"resume wins over tail", albedo.SubscribeOptions{After: 2, Tail: 4}, 2, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub, err := r.svc.SubscribeFrom(r.ctx, id, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			var got []albedo.Event
			pages := 0
			err = sub.ReadSnapshot(r.ctx, func(page []albedo.Event) error {
				pages++
				got = append(got, slices.Clone(page)...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := whole[tt.from:]; !slices.EqualFunc(got, want, sameEvents) {
				t.Errorf("snapshot = %v, want %v", eventSeqs(got), eventSeqs(want))
			}
			if sub.Tailed != tt.tailed || sub.Before != tt.wantBefore || sub.Last() != last {
				t.Errorf("tailed, before, last = %v, %d, %d; want %v, %d, %d", sub.Tailed, sub.Before, sub.Last(), tt.tailed, tt.wantBefore, last)
			}
		})
	}
}

// A tool event in a snapshot that starts between a call and its output
// still shows the call's code.
func TestTailedSnapshotKeepsTheCodeOfItsFirstOutput(t *testing.T) {
	r, id := longSession(t, 1)
	items := r.history(id)
	var output albedo.Item
	for _, it := range items {
		if it.Kind == albedo.KindToolOutput {
			output = it
		}
	}
	sub, err := r.svc.SubscribeFrom(r.ctx, id, albedo.SubscribeOptions{After: output.Seq - 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var first albedo.Event
	_ = sub.ReadSnapshot(r.ctx, func(page []albedo.Event) error {
		if first.Type == "" {
			first = page[0]
		}
		return nil
	})
	if first.Type != wire.EventTool || first.Code != "print(1)" {
		t.Errorf("first event = %+v, want the tool event with its code", first)
	}
}

// A subscriber that reads nothing is dropped with an overflow event once
// the events waiting for it pass the byte bound: its events end there,
// whatever the turn does next, and it holds no more than the bound.
func TestASlowSubscriberOverflows(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	r := newRig(t, script(fakes.Text("done")))
	sess := r.session("")
	gate := fakes.NewGate()
	r.provider.SetGate(gate)
	slow, err := r.svc.SubscribeFrom(r.ctx, sess.ID, albedo.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	r.send(sess.ID, big)
	<-gate.Entered()
	// The user message of a megabyte and its status: far from the byte
	// bound. Queueing more while the model waits passes it.
	for range 9 {
		r.send(sess.ID, big)
	}
	// Send publishes a queued message's event before it returns, so the
	// subscription has ended by now: what it holds is there to read.
	var events []albedo.Event
drain:
	for {
		select {
		case ev, ok := <-slow.Events:
			if !ok {
				break drain
			}
			events = append(events, ev)
		default:
			t.Fatalf("the subscription is still open after %d events, want it ended by an overflow", len(events))
		}
	}
	if n := len(events); events[n-1].Type != engine.EventOverflow {
		t.Errorf("after %d events the last is %+v, want overflow", n, events[n-1])
	}
	if n := len(events); n > 10 {
		t.Errorf("%d events of a megabyte each were held for a reader that read none", n)
	}
}
