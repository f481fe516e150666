package sqlite

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// fromDisk returns the sessions as a store opened afresh on path reads
// them, which is the database's truth.
func fromDisk(t *testing.T, path string) []albedo.Session {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all, err := s.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// TestSessionCacheAgreesWithTheDatabase commits from many goroutines, some
// commits failing inside their transaction, while others read, and checks
// that what the store serves from memory is what the file holds, whenever
// the cache was filled.
func TestSessionCacheAgreesWithTheDatabase(t *testing.T) {
	tests := []struct {
		name string
		// readFirst fills the cache before any write.
		readFirst bool
		// readDuring reads while the writers write.
		readDuring bool
	}{
		{name: "filled before the writes", readFirst: true, readDuring: true},
		{name: "filled during the writes", readDuring: true},
		{name: "filled after the writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			path := testPath(t)
			s := openStore(t, path)
			ids := createSessions(t, s, "c", 6)
			exec(t, rawDB(t, path), `CREATE TRIGGER fail_boom BEFORE INSERT ON queue
				WHEN NEW.text = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END`)
			if tt.readFirst {
				if _, err := s.Sessions(ctx); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			stop := make(chan struct{})
			if tt.readDuring {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := s.Sessions(ctx); err != nil {
							t.Error(err)
							return
						}
						if _, err := s.Session(ctx, ids[0]); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			var writers sync.WaitGroup
			for w := range 4 {
				writers.Go(func() {
					for c := range 20 {
						sess := newSession(ids[(w+c)%len(ids)])
						sess.Title = fmt.Sprintf("writer %d commit %d", w, c)
						sess.UpdatedAt = time.UnixMilli(int64(1_700_000_000_000 + c*1000 + w))
						change := albedo.Commit{Session: &sess}
						if c%3 == 2 {
							// This one fails after its upsert ran: nothing of it lands.
							sess.Title = "never"
							change.Enqueue = []albedo.Queued{{Text: "boom"}}
						}
						if _, err := s.Commit(ctx, change); (err != nil) != (c%3 == 2) {
							t.Errorf("commit %d of writer %d: %v", c, w, err)
						}
					}
				})
			}
			writers.Wait()
			close(stop)
			wg.Wait()

			got, err := s.Sessions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, sess := range got {
				if sess.Title == "never" {
					t.Errorf("session %s shows a commit that failed", sess.ID)
				}
				one, err := s.Session(ctx, sess.ID)
				if err != nil || one != sess {
					t.Errorf("Session(%s) = %+v, %v; the listing has %+v", sess.ID, one, err, sess)
				}
			}
			s.Close()
			if want := fromDisk(t, path); !reflect.DeepEqual(got, want) {
				t.Errorf("served:\n%+v\nthe file holds:\n%+v", got, want)
			}
		})
	}
}

// TestSessionsAreCopies checks that changing a listing the store returned
// changes nothing the store serves next.
func TestSessionsAreCopies(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, testPath(t))
	createSessions(t, s, "k", 2)
	first, err := s.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first[0].Title = "scribbled"
	again, err := s.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Title == "scribbled" {
		t.Error("a caller's change to a listing reached the store")
	}
}
