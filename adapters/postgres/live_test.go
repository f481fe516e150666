package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// runLive runs l until the test ends, with ticks it sends, and returns
// what it hears.
func runLive(t *testing.T, s *Store) (chan<- time.Time, <-chan albedo.LiveEvent) {
	t.Helper()
	ticks := make(chan time.Time)
	out := make(chan albedo.LiveEvent, 64)
	l := s.Live(LiveOptions{Ticks: ticks})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Run(ctx, func(ev albedo.LiveEvent) { out <- ev })
	}()
	t.Cleanup(func() { cancel(); <-done })
	sent := make(chan time.Time)
	go func() {
		for now := range sent {
			select {
			case ticks <- now:
			case <-done:
				return
			}
		}
	}()
	t.Cleanup(func() { close(sent) })
	return sent, out
}

// nextLive returns what a listener hears next.
func nextLive(t *testing.T, ch <-chan albedo.LiveEvent) albedo.LiveEvent {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("heard no live event")
		return albedo.LiveEvent{}
	}
}

func TestLiveEventsReachTheOtherDaemonInBatchesInOrder(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b := openStore(t, url), openStore(t, url)
	_, heardA := runLive(t, a)
	_, heardB := runLive(t, b)
	listening(t, url, 2)
	liveA := a.Live(LiveOptions{})
	ticksA := make(chan time.Time)
	liveA.opts.Ticks = ticksA
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); liveA.Run(ctx, func(albedo.LiveEvent) {}) }()
	defer func() { cancel(); <-done }()

	sent := []albedo.LiveEvent{
		{SessionID: "s\x00\xff1", Stamp: 3, Event: albedo.Event{Type: "delta", Kind: "text", Text: "Hel"}},
		{SessionID: "s\x00\xff1", Stamp: 3, Event: albedo.Event{Type: "delta", Kind: "text", Text: "lo"}},
		{SessionID: "s2", Stamp: 9, Event: albedo.Event{Type: "output", Call: 9, Text: "tick 1\n"}},
	}
	for _, ev := range sent {
		liveA.Publish(ev.SessionID, ev.Stamp, ev.Event)
	}
	select {
	case ev := <-heardB:
		t.Fatalf("heard %+v before the batch was sent", ev)
	default:
	}
	ticksA <- time.Now()
	for i, want := range sent {
		got := nextLive(t, heardB)
		if got.SessionID != want.SessionID || got.Stamp != want.Stamp || got.Event.Type != want.Event.Type || got.Event.Text != want.Event.Text || got.Event.Call != want.Event.Call || got.Gap {
			t.Errorf("event %d: heard %+v, want %+v", i, got, want)
		}
	}
	// Another daemon's batch reaches a: its own never come back to it.
	liveA.Publish("s3", 1, albedo.Event{Type: "status"})
	ticksA <- time.Now()
	if got := nextLive(t, heardB); got.SessionID != "s3" {
		t.Errorf("heard %+v, want the status of s3", got)
	}
	select {
	case ev := <-heardA:
		t.Errorf("a store's listener heard another Live of the same store: %+v", ev)
	default:
	}
}

func TestALiveBatchNoLongerStoredIsAGap(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b := openStore(t, url), openStore(t, url)
	_, heardB := runLive(t, b)
	listening(t, url, 1)
	// A batch pruned before it was read: its notification names no row.
	if _, err := a.db.DB.Exec(`SELECT pg_notify('albedo_live', 'other 12345')`); err != nil {
		t.Fatal(err)
	}
	if got := nextLive(t, heardB); !got.Gap {
		t.Errorf("heard %+v, want a gap", got)
	}
}

func TestALiveListenerThatReconnectsHearsAGap(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b := openStore(t, url), openStore(t, url)
	_, heardB := runLive(t, b)
	listening(t, url, 1)
	if _, err := a.db.DB.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`); err != nil {
		t.Fatal(err)
	}
	if got := nextLive(t, heardB); !got.Gap {
		t.Errorf("heard %+v, want a gap", got)
	}
}

func TestOldLiveBatchesArePruned(t *testing.T) {
	s := newStore(t)
	l := s.Live(LiveOptions{Keep: time.Hour})
	ctx := context.Background()
	l.Publish("s", 0, albedo.Event{Type: "status"})
	l.flush(ctx)
	if _, err := s.db.DB.Exec(`INSERT INTO live_batches (sender, at, body) VALUES ('x', now() - interval '2 hours', '[]')`); err != nil {
		t.Fatal(err)
	}
	l.prune(ctx)
	var left int
	if err := s.db.DB.QueryRow(`SELECT count(*) FROM live_batches`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 1 {
		t.Errorf("%d batches left after pruning, want the recent one", left)
	}
}
