package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
	"github.com/albedo-agent/albedo/fixtures/spooltest"
)

// TestSpoolConformance runs the spool suite against spools in a database,
// each test in a database of its own holding the suite's sessions.
func TestSpoolConformance(t *testing.T) {
	spooltest.Run(t, func(t *testing.T) spooltest.Open {
		url := pgtest.NewDatabase(t)
		withSessions(t, openStore(t, url), spooltest.Sessions()...)
		return func(limit int) (albedo.OutputSpool, func()) {
			s := openStore(t, url)
			p := s.Spool(SpoolOptions{Limit: limit})
			return p, func() {
				if err := p.Close(context.Background()); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
		}
	})
}

// withSessions stores sessions with the ids given.
func withSessions(t testing.TB, s *Store, ids ...string) {
	t.Helper()
	for _, id := range ids {
		sess := newSession(id)
		mustCommit(t, s, albedo.Commit{Session: &sess})
	}
}

// newTickedSpool returns a spool that writes a batch when the test says:
// tick returns once a batch is written.
func newTickedSpool(t *testing.T, s *Store, limit int) (p *Spool, tick func()) {
	t.Helper()
	ticks := make(chan time.Time)
	p = s.Spool(SpoolOptions{Limit: limit, Ticks: ticks})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p, func() {
		// The second tick is taken once the first one's batch is written.
		ticks <- time.Now()
		ticks <- time.Now()
	}
}

// What a cell prints reaches the database only with a batch; a daemon
// taking the turn over then reads it.
func TestSpoolWritesInBatches(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	owner := openStore(t, url)
	withSessions(t, owner, "s")
	p, tick := newTickedSpool(t, owner, 0)
	other := openStore(t, url).Spool(SpoolOptions{})
	t.Cleanup(func() { _ = other.Close(ctx) })
	for i := range 100 {
		if err := p.Append(ctx, "s", 4, strings.Repeat("x", i)+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	if got := rows(t, owner); got != 0 {
		t.Fatalf("%d rows before any batch, want none", got)
	}
	tick()
	if got, err := other.Read(ctx, "s", 4); err != nil || !strings.HasSuffix(got, strings.Repeat("x", 99)+"\n") {
		t.Fatalf("the other daemon reads %q, %v", got, err)
	}
	if err := p.Append(ctx, "s", 4, "last line\n"); err != nil {
		t.Fatal(err)
	}
	tick()
	if got, _ := other.Read(ctx, "s", 4); !strings.HasSuffix(got, "x\nlast line\n") {
		t.Errorf("after the second batch the other daemon reads ...%q", got[max(0, len(got)-40):])
	}
	if err := p.Remove(ctx, "s", 4); err != nil {
		t.Fatal(err)
	}
	tick()
	if got := rows(t, owner); got != 0 {
		t.Errorf("%d rows once the removal's batch is written, want none", got)
	}
}

// A cell removed before a batch wrote it costs the database nothing.
func TestSpoolRemovesUnwrittenCellsInMemory(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	withSessions(t, s, "s")
	p, _ := newTickedSpool(t, s, 0)
	if err := p.Append(ctx, "s", 1, "hello\n"); err != nil {
		t.Fatal(err)
	}
	if err := p.Remove(ctx, "s", 1); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.cells) != 0 || len(p.deletes) != 0 {
		t.Errorf("after the removal the spool holds %d cells and %d removals", len(p.cells), len(p.deletes))
	}
}

// However much a cell prints, its row and what the spool holds of it in
// memory stay within the limit.
func TestSpoolBoundsItsRowAndMemory(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	withSessions(t, s, "s")
	p, tick := newTickedSpool(t, s, 1024)
	for i := range 1000 {
		if err := p.Append(ctx, "s", 1, strings.Repeat("y", i%300)); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			tick()
		}
	}
	tick()
	var kept int
	if err := s.db.DB.QueryRowContext(ctx, `SELECT octet_length(head) + octet_length(tail) FROM cell_output`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if kept > 1024 {
		t.Errorf("the row keeps %d bytes, more than its limit of 1024", kept)
	}
	p.mu.Lock()
	c := p.cells[spoolKey{"s", 1}]
	held := len(c.out.Head()) + cap(c.out.Tail())
	p.mu.Unlock()
	if held > 2*1024 {
		t.Errorf("the spool holds %d bytes of the cell in memory, more than twice its limit of 1024", held)
	}
}

// While the database refuses the batches, cells go on spooling into
// memory; the first batch that lands writes all they printed, the head
// that never reached the database included.
func TestSpoolWritesAfterFailedBatches(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	withSessions(t, s, "s")
	p, tick := newTickedSpool(t, s, 64)
	pgtest.Exec(t, url, `ALTER TABLE cell_output RENAME TO cell_output_away`)
	var printed strings.Builder
	for i := range 40 {
		line := strings.Repeat(string(rune('a'+i%26)), 5) + "\n"
		printed.WriteString(line)
		if err := p.Append(ctx, "s", 2, line); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			tick()
		}
	}
	pgtest.Exec(t, url, `ALTER TABLE cell_output_away RENAME TO cell_output`)
	tick()
	other := openStore(t, url).Spool(SpoolOptions{Limit: 64})
	t.Cleanup(func() { _ = other.Close(ctx) })
	got, err := other.Read(ctx, "s", 2)
	if err != nil {
		t.Fatal(err)
	}
	spooltest.CheckKept(t, printed.String(), got, 64)
}

// A cell of a session deleted meanwhile gets no row, and its batch does
// not fail.
func TestSpoolSkipsDeletedSessions(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	withSessions(t, s, "s")
	p, _ := newTickedSpool(t, s, 0)
	if err := s.DeleteSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if err := p.Append(ctx, "s", 1, "printed"); err != nil {
		t.Fatal(err)
	}
	if err := p.flush(ctx); err != nil {
		t.Errorf("a batch for a deleted session: %v", err)
	}
	if got := rows(t, s); got != 0 {
		t.Errorf("%d rows for a deleted session", got)
	}
}

// rows counts the rows of cell_output.
func rows(t testing.TB, s *Store) int {
	t.Helper()
	var n int
	if err := s.db.DB.QueryRowContext(context.Background(), `SELECT count(*) FROM cell_output`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
