package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// heard is one call of Watch's fn.
type heard struct {
	session string
	seq     int64
}

// watch runs s.Watch until the test ends and returns what it hears.
func watch(t *testing.T, s *Store) <-chan heard {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan heard, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Watch(ctx, func(session string, seq int64) { out <- heard{session, seq} })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return out
}

// next returns what the watcher hears next.
func next(t *testing.T, ch <-chan heard) heard {
	t.Helper()
	select {
	case h := <-ch:
		return h
	case <-time.After(30 * time.Second):
		t.Fatal("heard nothing")
		return heard{}
	}
}

// listening waits until the database has a listener on the commit
// channel besides what the test runs itself.
func listening(t *testing.T, url string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got int
		db := openStore(t, url)
		err := db.db.DB.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&got)
		db.Close()
		if err == nil && got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listener after 30 s (%d, %v)", got, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWatchHearsOtherProcessesCommitsOnce(t *testing.T) {
	url := pgtest.NewDatabase(t)
	writer, reader := openStore(t, url), openStore(t, url)
	heardByReader, heardByWriter := watch(t, reader), watch(t, writer)
	listening(t, url, 2)
	sess := newSession("s")
	mustCommit(t, writer, albedo.Commit{Session: &sess})
	item := albedo.Item{Kind: albedo.KindAssistant, Text: "hello", Timestamp: 1}
	mustCommit(t, writer, albedo.Commit{SessionID: "s", Items: []albedo.Item{item, item}})
	if h := next(t, heardByReader); h != (heard{"s", 2}) {
		t.Fatalf("heard %+v after a commit of two items, want s up to 2", h)
	}
	sess.Revision = 2
	mustCommit(t, writer, albedo.Commit{Session: &sess, Expect: 1, Items: []albedo.Item{item}})
	if h := next(t, heardByReader); h != (heard{"s", 3}) {
		t.Fatalf("heard %+v after a commit of the row and an item, want s up to 3", h)
	}
	// The writer hears the reader's commit, never its own.
	mustCommit(t, reader, albedo.Commit{SessionID: "s", Items: []albedo.Item{item}})
	if h := next(t, heardByWriter); h != (heard{"s", 4}) {
		t.Fatalf("the writer heard %+v, want the reader's commit up to 4", h)
	}
}

func TestWatchSaysSoAfterItsConnectionWasLost(t *testing.T) {
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	ch := watch(t, s)
	listening(t, url, 1)
	pgtest.Exec(t, url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN %'`)
	if h := next(t, ch); h != (heard{}) {
		t.Fatalf("after the lost connection heard %+v, want the empty word that some may be missed", h)
	}
}

func TestWatchHearsInterruptsAskedForByAnyProcess(t *testing.T) {
	url := pgtest.NewDatabase(t)
	runner, other := openStore(t, url), openStore(t, url)
	ch := watch(t, runner)
	listening(t, url, 1)
	if err := other.Interrupt(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	if h := next(t, ch); h != (heard{"s", albedo.InterruptSeq}) {
		t.Fatalf("heard %+v, want the interrupt of s", h)
	}
}

func TestWatchHearsWakesOfAnyProcess(t *testing.T) {
	url := pgtest.NewDatabase(t)
	runner, other := openStore(t, url), openStore(t, url)
	ch := watch(t, runner)
	listening(t, url, 1)
	if err := other.Wake(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	if h := next(t, ch); h != (heard{"s", albedo.WakeSeq}) {
		t.Fatalf("heard %+v, want the wake of s", h)
	}
}
