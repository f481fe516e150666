package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// statesBackend is a Store that holds compaction states only and counts
// its reads; a read of the session named in block waits for release.
type statesBackend struct {
	albedo.Store
	mu      sync.Mutex
	states  map[string]albedo.Compaction
	reads   int
	rows    []albedo.RequestRow
	nextRow int64
	block   string
	reading chan struct{}
	release chan struct{}
}

func (b *statesBackend) Compaction(_ context.Context, id string) (albedo.Compaction, error) {
	b.mu.Lock()
	b.reads++
	c, ok := b.states[id]
	block := b.block == id
	b.mu.Unlock()
	if block {
		b.reading <- struct{}{}
		<-b.release
	}
	if !ok {
		return albedo.Compaction{}, albedo.Errorf(albedo.ENotFound, "no compaction state for session %s", id)
	}
	return c, nil
}

func (b *statesBackend) SaveCompaction(_ context.Context, c albedo.Compaction) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.states[c.SessionID] = c
	return nil
}

func (b *statesBackend) Commit(_ context.Context, c albedo.Commit) (albedo.Committed, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.Compaction != nil {
		comp := *c.Compaction
		comp.SessionID = c.SessionID
		b.states[c.SessionID] = comp
	}
	return albedo.Committed{}, nil
}

func (b *statesBackend) AppendRequest(_ context.Context, row albedo.RequestRow) (albedo.RequestRow, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if row.SessionID == "missing" {
		return albedo.RequestRow{}, albedo.Errorf(albedo.ENotFound, "no session %s", row.SessionID)
	}
	b.nextRow++
	row.ID = b.nextRow
	b.rows = append(b.rows, row)
	return row, nil
}

func (b *statesBackend) LastRequest(_ context.Context, id string, kind albedo.RequestKind) (albedo.RequestRow, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	for i := len(b.rows) - 1; i >= 0; i-- {
		if r := b.rows[i]; r.SessionID == id && r.Kind == kind {
			return r, true, nil
		}
	}
	return albedo.RequestRow{}, false, nil
}

func (b *statesBackend) DeleteSession(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.states, id)
	b.rows = slices.DeleteFunc(b.rows, func(r albedo.RequestRow) bool { return r.SessionID == id })
	return nil
}

func TestStatesStoreKeepsWhatItReadAndWrote(t *testing.T) {
	ctx := context.Background()
	state := func(id, summary string) albedo.Compaction {
		return albedo.Compaction{SessionID: id, Summary: summary, Users: 1}
	}
	tests := []struct {
		name string
		// run acts on the store and returns the state read last.
		run       func(s *statesStore) (albedo.Compaction, error)
		want      string // summary; "" means ENotFound
		wantReads int
	}{
		{"a session without state is read once", func(s *statesStore) (albedo.Compaction, error) {
			s.Compaction(ctx, "a")
			return s.Compaction(ctx, "a")
		}, "", 1},
		{"a state is read once", func(s *statesStore) (albedo.Compaction, error) {
			s.Store.SaveCompaction(ctx, state("a", "one"))
			s.Compaction(ctx, "a")
			return s.Compaction(ctx, "a")
		}, "one", 1},
		{"a saved state replaces the kept one without a read", func(s *statesStore) (albedo.Compaction, error) {
			s.Compaction(ctx, "a")
			s.SaveCompaction(ctx, state("a", "two"))
			return s.Compaction(ctx, "a")
		}, "two", 1},
		{"a state committed with a transcript item replaces the kept one without a read", func(s *statesStore) (albedo.Compaction, error) {
			s.Compaction(ctx, "a")
			c := state("a", "three")
			s.Commit(ctx, albedo.Commit{SessionID: "a", Items: []albedo.Item{{Kind: albedo.KindCompaction}}, Compaction: &c})
			return s.Compaction(ctx, "a")
		}, "three", 1},
		{"a commit without a state keeps the kept one", func(s *statesStore) (albedo.Compaction, error) {
			s.SaveCompaction(ctx, state("a", "one"))
			s.Commit(ctx, albedo.Commit{SessionID: "a", Items: []albedo.Item{{Kind: albedo.KindUser}}})
			return s.Compaction(ctx, "a")
		}, "one", 0},
		{"a deleted session's state is forgotten", func(s *statesStore) (albedo.Compaction, error) {
			s.SaveCompaction(ctx, state("a", "one"))
			s.DeleteSession(ctx, "a")
			return s.Compaction(ctx, "a")
		}, "", 1},
		{"sessions do not share states", func(s *statesStore) (albedo.Compaction, error) {
			s.SaveCompaction(ctx, state("a", "one"))
			return s.Compaction(ctx, "b")
		}, "", 1},
		{"past the bound the oldest state is read again", func(s *statesStore) (albedo.Compaction, error) {
			for i := range compactionStates + 1 {
				s.Compaction(ctx, fmt.Sprint(i))
			}
			s.Compaction(ctx, fmt.Sprint(compactionStates))
			return s.Compaction(ctx, "0")
		}, "", compactionStates + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &statesBackend{states: map[string]albedo.Compaction{}}
			s := newStatesStore(b)
			c, err := tt.run(s)
			if tt.want == "" && albedo.ErrorCode(err) != albedo.ENotFound {
				t.Errorf("got %+v, %v; want ENotFound", c, err)
			}
			if tt.want != "" && (err != nil || c.Summary != tt.want) {
				t.Errorf("got %+v, %v; want summary %q", c, err, tt.want)
			}
			if b.reads != tt.wantReads {
				t.Errorf("%d reads of the store, want %d", b.reads, tt.wantReads)
			}
			if len(s.states.entries) > compactionStates || len(s.states.order) != len(s.states.entries) {
				t.Errorf("keeps %d states in an order of %d", len(s.states.entries), len(s.states.order))
			}
		})
	}
}

// A read that started before a save answers what it read, but does not
// keep it: the next read sees the saved state.
func TestStatesStoreDoesNotKeepAReadThatRacedAWrite(t *testing.T) {
	ctx := context.Background()
	b := &statesBackend{states: map[string]albedo.Compaction{}, block: "a", reading: make(chan struct{}), release: make(chan struct{})}
	s := newStatesStore(b)
	done := make(chan error)
	go func() {
		_, err := s.Compaction(ctx, "a")
		done <- err
	}()
	<-b.reading
	if err := s.SaveCompaction(ctx, albedo.Compaction{SessionID: "a", Summary: "new", Users: 1}); err != nil {
		t.Fatal(err)
	}
	close(b.release)
	if err := <-done; albedo.ErrorCode(err) != albedo.ENotFound {
		t.Fatalf("the raced read answered %v, want what it read (none)", err)
	}
	b.mu.Lock()
	b.block = ""
	b.mu.Unlock()
	if c, err := s.Compaction(ctx, "a"); err != nil || c.Summary != "new" {
		t.Fatalf("after the save: %+v, %v", c, err)
	}
}

func TestStatesStoreKeepsTheNewestLedgerRows(t *testing.T) {
	ctx := context.Background()
	turn := func(id string) albedo.RequestRow {
		return albedo.RequestRow{SessionID: id, Kind: albedo.RequestTurn, Bytes: 10}
	}
	tests := []struct {
		name string
		// run acts on the store and returns the last LastRequest answer.
		run       func(s *statesStore) (albedo.RequestRow, bool, error)
		wantID    int64 // 0: none
		wantReads int
	}{
		{"no row is read once", func(s *statesStore) (albedo.RequestRow, bool, error) {
			s.LastRequest(ctx, "a", albedo.RequestSummary)
			return s.LastRequest(ctx, "a", albedo.RequestSummary)
		}, 0, 1},
		{"an appended row is the newest without a read", func(s *statesStore) (albedo.RequestRow, bool, error) {
			s.LastRequest(ctx, "a", albedo.RequestTurn)
			s.AppendRequest(ctx, turn("a"))
			s.AppendRequest(ctx, turn("a"))
			return s.LastRequest(ctx, "a", albedo.RequestTurn)
		}, 2, 1},
		{"kinds are apart", func(s *statesStore) (albedo.RequestRow, bool, error) {
			s.AppendRequest(ctx, turn("a"))
			return s.LastRequest(ctx, "a", albedo.RequestSummary)
		}, 0, 1},
		{"sessions are apart", func(s *statesStore) (albedo.RequestRow, bool, error) {
			s.AppendRequest(ctx, turn("a"))
			return s.LastRequest(ctx, "b", albedo.RequestTurn)
		}, 0, 1},
		{"a failed append is read again", func(s *statesStore) (albedo.RequestRow, bool, error) {
			s.LastRequest(ctx, "missing", albedo.RequestTurn)
			s.AppendRequest(ctx, turn("missing"))
			return s.LastRequest(ctx, "missing", albedo.RequestTurn)
		}, 0, 2},
		{"a deleted session's rows are forgotten", func(s *statesStore) (albedo.RequestRow, bool, error) {
			s.AppendRequest(ctx, turn("a"))
			s.DeleteSession(ctx, "a")
			return s.LastRequest(ctx, "a", albedo.RequestTurn)
		}, 0, 1},
		{"a long turn keeps hitting memory", func(s *statesStore) (albedo.RequestRow, bool, error) {
			for range 3 * compactionStates {
				s.AppendRequest(ctx, turn("a"))
				s.LastRequest(ctx, "a", albedo.RequestTurn)
				s.LastRequest(ctx, "a", albedo.RequestSummary)
			}
			return s.LastRequest(ctx, "a", albedo.RequestTurn)
		}, 3 * compactionStates, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &statesBackend{states: map[string]albedo.Compaction{}}
			s := newStatesStore(b)
			row, ok, err := tt.run(s)
			if err != nil || ok != (tt.wantID != 0) || row.ID != tt.wantID {
				t.Errorf("got row %d, %v, %v; want row %d", row.ID, ok, err, tt.wantID)
			}
			if b.reads != tt.wantReads {
				t.Errorf("%d reads of the store, want %d", b.reads, tt.wantReads)
			}
			if len(s.last.entries) > 2*compactionStates || len(s.last.order) != len(s.last.entries) {
				t.Errorf("keeps %d rows in an order of %d", len(s.last.entries), len(s.last.order))
			}
		})
	}
}
