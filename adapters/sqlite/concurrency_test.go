package sqlite

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestConcurrentCommits(t *testing.T) {
	s := openStore(t, testPath(t))
	ctx := context.Background()
	const (
		writers = 12
		commits = 25
	)
	ids := createSessions(t, s, "w", writers)
	// One more writer shares a session with writer 0, so two goroutines
	// append to the same transcript.
	ids = append(ids, ids[0])

	var wg sync.WaitGroup
	errs := make(chan error, len(ids)+writers)
	for w, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range commits {
				sess, err := s.Session(ctx, id)
				if err != nil {
					errs <- err
					return
				}
				sess.Revision++
				_, err = s.Commit(ctx, albedo.Commit{
					Session: &sess,
					Items:   []albedo.Item{textItem(fmt.Sprintf("%d/%d a", w, c)), textItem(fmt.Sprintf("%d/%d b", w, c))},
					Enqueue: []albedo.Queued{{Text: "q"}},
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// Readers run alongside the writers.
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range commits {
				if _, err := s.Sessions(ctx); err != nil {
					errs <- err
					return
				}
				if _, err := s.Items(ctx, ids[0], 0, 50); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	for i, id := range ids[:writers] {
		want := 2 * commits
		if i == 0 {
			want *= 2
		}
		items, err := s.Items(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != want {
			t.Errorf("session %s: %d items, want %d", id, len(items), want)
		}
		for j, it := range items {
			if it.Seq != int64(j+1) {
				t.Fatalf("session %s: item %d has seq %d", id, j, it.Seq)
			}
		}
		queued, err := s.Queued(ctx, id)
		if err != nil || len(queued) != want/2 {
			t.Errorf("session %s: %d queued (%v), want %d", id, len(queued), err, want/2)
		}
	}
}
