package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/internal/clip"
)

// Defaults of SpoolOptions.
const (
	DefaultSpoolLimit = 32 << 10
	DefaultSpoolEvery = 100 * time.Millisecond
)

// spoolWriteTimeout bounds one write of a batch, so that a database that
// hangs delays the next batch, never the cells.
const spoolWriteTimeout = 5 * time.Second

// maxSpoolDeletes bounds the removals waiting for the database: past it
// the oldest are forgotten, and their rows stay until their session is
// deleted.
const maxSpoolDeletes = 4096

// SpoolOptions tune the spool of cell output kept in the database.
type SpoolOptions struct {
	// Limit is the most bytes kept of one cell; zero means
	// DefaultSpoolLimit.
	Limit int
	// Every is how often what cells printed is written, when they printed
	// something; zero means DefaultSpoolEvery.
	Every time.Duration
	// Ticks, when set, replaces the ticker of Every: each value received
	// writes a batch (tests drive it).
	Ticks <-chan time.Time
	// Logger receives failures to write a batch; nil discards them.
	Logger *slog.Logger
}

// Spool is the albedo.OutputSpool of daemons sharing a PostgreSQL
// database: a cell's output is one row of cell_output, so that a daemon
// taking over a turn whose daemon died reads what the cell printed.
//
// Append only updates memory, so that a slow or failing database never
// holds a cell up: every Every, one statement a cell writes the cells that
// printed since, and one statement removes the rows of the cells Remove
// was given. A crash loses at most what cells printed since the last
// batch; a batch that fails is written with the next. Memory is bounded as
// the row is: a cell keeps its first Limit/2 bytes and its last Limit/2,
// and counts the bytes between (a clip.Buffer). Close writes what is left.
type Spool struct {
	s        *Store
	opts     SpoolOptions
	stop     context.CancelFunc
	stopped  chan struct{}
	closeErr error
	once     sync.Once

	// write is held while a batch is written, so that batches, reads and
	// removals reach the database in order.
	write sync.Mutex

	mu      sync.Mutex
	cells   map[spoolKey]*spoolCell
	deletes []spoolKey
}

var _ albedo.OutputSpool = (*Spool)(nil)

// spoolKey names a cell: its session and the Seq of its call.
type spoolKey struct {
	session string
	call    int64
}

// spoolCell is what the spool holds of one cell this process runs.
type spoolCell struct {
	// out keeps the first and last bytes printed and counts them all.
	out clip.Buffer
	// headWritten is how much of head the database holds.
	headWritten int
	// dirty says the cell printed since its last write; stored that a
	// write of it was tried, so that its row may exist.
	dirty, stored bool
}

// Spool returns the spool of cell output kept in the store's database,
// writing batches until Close.
func (s *Store) Spool(opts SpoolOptions) *Spool {
	if opts.Limit <= 0 {
		opts.Limit = DefaultSpoolLimit
	}
	if opts.Every <= 0 {
		opts.Every = DefaultSpoolEvery
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, stop := context.WithCancel(context.Background())
	p := &Spool{
		s: s, opts: opts,
		stop: stop, stopped: make(chan struct{}), cells: make(map[spoolKey]*spoolCell),
	}
	go p.run(ctx)
	return p
}

// Append adds text to the cell's output in memory; the next batch writes
// it. It never waits for the database.
func (p *Spool) Append(_ context.Context, sessionID string, call int64, text string) error {
	key := spoolKey{sessionID, call}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cells[key]
	if c == nil {
		c = &spoolCell{out: clip.New(p.opts.Limit)}
		p.cells[key] = c
	}
	c.out.Write([]byte(text))
	c.dirty = true
	return nil
}

// Read returns what the database holds of the cell, after writing what
// this process holds of it: "" when there is nothing; the bytes between
// the head and the tail are replaced by a line saying how many were cut.
func (p *Spool) Read(ctx context.Context, sessionID string, call int64) (string, error) {
	_ = p.flush(ctx) // what failed is logged; the stored row is read anyway
	var head, tail []byte
	var printed int64
	err := p.s.db.DB.QueryRowContext(ctx, `SELECT head, tail, printed FROM cell_output WHERE session_id = $1 AND call = $2`,
		[]byte(sessionID), call).Scan(&head, &tail, &printed)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the spooled output of call %d of session %s: %w", call, sessionID, unavailable(err))
	}
	var out strings.Builder
	out.Write(head)
	if cut := printed - int64(len(head)+len(tail)); cut > 0 {
		out.WriteString(clip.Line(cut))
	}
	out.Write(tail)
	return strings.ToValidUTF8(out.String(), "\uFFFD"), nil
}

// Remove forgets the cell: its row goes with the next batch. A cell this
// process spooled without writing it yet costs the database nothing.
func (p *Spool) Remove(_ context.Context, sessionID string, call int64) error {
	key := spoolKey{sessionID, call}
	p.mu.Lock()
	defer p.mu.Unlock()
	c, known := p.cells[key]
	delete(p.cells, key)
	if known && !c.stored {
		return nil
	}
	if len(p.deletes) == maxSpoolDeletes {
		p.deletes = p.deletes[1:]
	}
	p.deletes = append(p.deletes, key)
	return nil
}

// RemoveSession forgets every cell of the session, at once.
func (p *Spool) RemoveSession(ctx context.Context, sessionID string) error {
	p.write.Lock()
	defer p.write.Unlock()
	p.mu.Lock()
	for key := range p.cells {
		if key.session == sessionID {
			delete(p.cells, key)
		}
	}
	kept := p.deletes[:0]
	for _, key := range p.deletes {
		if key.session != sessionID {
			kept = append(kept, key)
		}
	}
	p.deletes = kept
	p.mu.Unlock()
	if _, err := p.s.db.DB.ExecContext(ctx, `DELETE FROM cell_output WHERE session_id = $1`, []byte(sessionID)); err != nil {
		return fmt.Errorf("remove the spooled output of session %s: %w", sessionID, unavailable(err))
	}
	return nil
}

// Flush writes at once what cells printed since the last batch (those of
// every session).
func (p *Spool) Flush(ctx context.Context, _ string) error {
	if err := p.flush(ctx); err != nil {
		return fmt.Errorf("write spooled cell output: %w", err)
	}
	return nil
}

// Close stops the batches and writes what is left, within ctx. Later
// calls return the first call's result.
func (p *Spool) Close(ctx context.Context) error {
	p.once.Do(func() {
		p.stop()
		<-p.stopped
		if err := p.flush(ctx); err != nil {
			p.closeErr = fmt.Errorf("write the last spooled cell output: %w", err)
		}
	})
	return p.closeErr
}

// run writes a batch on every tick until ctx ends.
func (p *Spool) run(ctx context.Context) {
	defer close(p.stopped)
	ticks := p.opts.Ticks
	if ticks == nil {
		t := time.NewTicker(p.opts.Every)
		defer t.Stop()
		ticks = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			_ = p.flush(ctx) // logged; written with the next batch
		}
	}
}

// spoolWrite is one cell's part of a batch.
type spoolWrite struct {
	key     spoolKey
	cell    *spoolCell
	head    []byte // nil when the database holds the whole head
	headLen int
	tail    []byte
	printed int64
}

// flush writes the removals and the cells that printed since the last
// batch. What fails stays for the next, and is returned.
func (p *Spool) flush(ctx context.Context) error {
	p.write.Lock()
	defer p.write.Unlock()
	p.mu.Lock()
	deletes := p.deletes
	p.deletes = nil
	var writes []spoolWrite
	for key, c := range p.cells {
		if !c.dirty {
			continue
		}
		head := c.out.Head()
		w := spoolWrite{key: key, cell: c, headLen: len(head), tail: append([]byte{}, c.out.Tail()...), printed: c.out.Total()}
		if c.headWritten != len(head) {
			w.head = append([]byte{}, head...)
		}
		writes = append(writes, w)
		c.dirty, c.stored = false, true
	}
	p.mu.Unlock()
	var errs []error
	if len(deletes) > 0 {
		if err := p.remove(ctx, deletes); err != nil {
			errs = append(errs, err)
			p.opts.Logger.Warn("remove spooled cell output", "cells", len(deletes), "err", err)
			p.mu.Lock()
			p.deletes = append(deletes, p.deletes...)
			if over := len(p.deletes) - maxSpoolDeletes; over > 0 {
				p.deletes = p.deletes[over:]
			}
			p.mu.Unlock()
		}
	}
	for _, w := range writes {
		err := p.store(ctx, w)
		p.mu.Lock()
		if err != nil {
			w.cell.dirty = true
		} else {
			w.cell.headWritten = max(w.cell.headWritten, w.headLen)
		}
		p.mu.Unlock()
		if err != nil {
			errs = append(errs, err)
			p.opts.Logger.Warn("spool cell output", "session", w.key.session, "call", w.key.call, "err", err)
		}
	}
	return errors.Join(errs...)
}

// store writes one cell's row; a head of nil keeps the stored one. A
// session deleted meanwhile gets no row.
func (p *Spool) store(ctx context.Context, w spoolWrite) error {
	ctx, cancel := context.WithTimeout(ctx, spoolWriteTimeout)
	defer cancel()
	_, err := p.s.db.DB.ExecContext(ctx, `INSERT INTO cell_output (session_id, call, head, tail, printed)
		SELECT $1, $2, COALESCE($3, ''::bytea), $4, $5 WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1)
		ON CONFLICT (session_id, call) DO UPDATE
		SET head = COALESCE($3, cell_output.head), tail = EXCLUDED.tail, printed = EXCLUDED.printed`,
		[]byte(w.key.session), w.key.call, w.head, w.tail, w.printed)
	return unavailable(err)
}

// remove deletes the rows of cells in one statement.
func (p *Spool) remove(ctx context.Context, cells []spoolKey) error {
	ctx, cancel := context.WithTimeout(ctx, spoolWriteTimeout)
	defer cancel()
	sessions := make([][]byte, len(cells))
	calls := make([]int64, len(cells))
	for i, c := range cells {
		sessions[i], calls[i] = []byte(c.session), c.call
	}
	_, err := p.s.db.DB.ExecContext(ctx, `DELETE FROM cell_output o USING unnest($1::bytea[], $2::bigint[]) AS r(session_id, call)
		WHERE o.session_id = r.session_id AND o.call = r.call`, sessions, calls)
	return unavailable(err)
}
