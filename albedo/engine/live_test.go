package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// fakeLive records what the service publishes and lets the test tell it
// what other processes published.
type fakeLive struct {
	mu        sync.Mutex
	published []albedo.LiveEvent
	running   chan func(albedo.LiveEvent)
}

func newFakeLive() *fakeLive { return &fakeLive{running: make(chan func(albedo.LiveEvent), 1)} }

func (l *fakeLive) Publish(sessionID string, stamp int64, ev albedo.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.published = append(l.published, albedo.LiveEvent{SessionID: sessionID, Stamp: stamp, Event: ev})
}

func (l *fakeLive) Run(ctx context.Context, fn func(albedo.LiveEvent)) {
	l.running <- fn
	<-ctx.Done()
}

func (l *fakeLive) sent() []albedo.LiveEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]albedo.LiveEvent(nil), l.published...)
}

func TestATurnsLiveEventsAreSharedStampedWithTheDurableEventBeforeThem(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	live := newFakeLive()
	r.tune = func(o *engine.Options) { o.Live = live }
	r.svc = r.newService()
	sess := r.session(respProvider)
	r.turn(sess.ID, "hello")
	var types []string
	for _, ev := range live.sent() {
		if ev.SessionID != sess.ID {
			t.Errorf("shared an event of session %q", ev.SessionID)
		}
		types = append(types, ev.Event.Type)
		if ev.Event.Type == "delta" && ev.Stamp != 1 {
			t.Errorf("the reply's delta is stamped %d, want 1 (the user's message)", ev.Stamp)
		}
	}
	want := map[string]bool{"status": false, "delta": false}
	for _, typ := range types {
		if typ == "message" || typ == "user" || typ == "turn" {
			t.Errorf("shared a durable %s event: they go with the commits", typ)
		}
		if _, ok := want[typ]; ok {
			want[typ] = true
		}
	}
	for typ, seen := range want {
		if !seen {
			t.Errorf("no %s event shared; shared %v", typ, types)
		}
	}
}

func TestAnotherProcesssLiveEventsReachSubscribers(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	live := newFakeLive()
	r.tune = func(o *engine.Options) { o.Live = live }
	r.svc = r.newService()
	tell := <-live.running
	sess := r.session(respProvider)
	r.turn(sess.ID, "hello") // seqs 1 to 3 here: user, message, turn
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	tests := []struct {
		name  string
		heard albedo.LiveEvent
		shown bool
	}{
		{"a delta of an item not shown yet", albedo.LiveEvent{SessionID: sess.ID, Stamp: 3, Event: albedo.Event{Type: "delta", Kind: "text", Text: "new"}}, true},
		{"a delta of an item shown whole", albedo.LiveEvent{SessionID: sess.ID, Stamp: 2, Event: albedo.Event{Type: "delta", Kind: "text", Text: "stale"}}, false},
		{"a running cell's output", albedo.LiveEvent{SessionID: sess.ID, Stamp: 3, Event: albedo.Event{Type: "output", Call: 3, Text: "1\n"}}, true},
		{"output of a cell shown ended", albedo.LiveEvent{SessionID: sess.ID, Stamp: 1, Event: albedo.Event{Type: "output", Call: 1, Text: "old\n"}}, false},
		{"a status, however stamped", albedo.LiveEvent{SessionID: sess.ID, Stamp: 0, Event: albedo.Event{Type: "status", Running: new(true)}}, true},
		{"an event of a session nobody here watches", albedo.LiveEvent{SessionID: "other", Stamp: 9, Event: albedo.Event{Type: "delta", Text: "x"}}, false},
		{"a gap", albedo.LiveEvent{Gap: true}, true},
	}
	for _, tt := range tests {
		tell(tt.heard)
		// A marker after each: what came before it was published or not.
		tell(albedo.LiveEvent{SessionID: sess.ID, Stamp: 3, Event: albedo.Event{Type: "queued", Text: "marker"}})
		ev := nextEvent(t, sub)
		shown := ev.Text != "marker"
		if shown != tt.shown {
			t.Errorf("%s: shown %v, want %v (came %+v)", tt.name, shown, tt.shown, ev)
		}
		if shown {
			want := tt.heard.Event.Type
			if tt.heard.Gap {
				want = "gap"
			}
			if ev.Type != want {
				t.Errorf("%s: came %s, want %s", tt.name, ev.Type, want)
			}
			if marker := nextEvent(t, sub); marker.Text != "marker" {
				t.Fatalf("%s: came %+v, want the marker", tt.name, marker)
			}
		}
	}
	if got := live.sent(); len(got) > 0 && got[len(got)-1].Event.Text == "marker" {
		t.Error("another process's live event was shared again")
	}
}
