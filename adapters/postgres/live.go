package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo"

	"github.com/jackc/pgx/v5"
)

// liveChannel is the channel on which each batch of live events says
// who sent it and the id of its row in live_batches: "SENDER ID".
const liveChannel = "albedo_live"

// Defaults of LiveOptions.
const (
	DefaultLiveEvery = 100 * time.Millisecond
	DefaultLiveKeep  = 5 * time.Minute
	pruneEvery       = time.Minute
)

// LiveOptions tune how live events are batched.
type LiveOptions struct {
	// Every is how often a batch leaves, when there is one; zero means
	// DefaultLiveEvery.
	Every time.Duration
	// Ticks, when set, replaces the ticker of Every: each value received
	// sends a batch (tests drive it). The values are the times the
	// pruning of old batches goes by.
	Ticks <-chan time.Time
	// Keep is how long a batch stays in the database, by its clock, for
	// listeners that fell behind; zero means DefaultLiveKeep.
	Keep time.Duration
	// Logger receives failures to send or read a batch; nil discards them.
	Logger *slog.Logger
}

// Live is the albedo.LiveEvents of the daemons sharing a PostgreSQL
// database: the live events Publish is given leave in batches (every
// 100 ms by default), each one row of the unlogged table live_batches
// inserted by a statement that also notifies it; each listener reads the
// rows it hears of. A batch not sent (the database failed) or not heard
// (the listener reconnected, the row was pruned) makes a gap.
type Live struct {
	s    *Store
	opts LiveOptions
	mu   sync.Mutex
	// pending is what the next batch sends; lost says that a batch
	// failed since the last one sent, which the next one says first.
	pending []liveRecord
	lost    bool
}

// liveRecord is one event of a batch; a batch is a JSON array of them.
type liveRecord struct {
	Session []byte        `json:"s,omitempty"`
	Stamp   int64         `json:"t,omitempty"`
	Event   *albedo.Event `json:"e,omitempty"`
	Gap     bool          `json:"gap,omitempty"`
}

var _ albedo.LiveEvents = (*Live)(nil)

// Live returns the live events shared through the store's database.
func (s *Store) Live(opts LiveOptions) *Live {
	if opts.Every <= 0 {
		opts.Every = DefaultLiveEvery
	}
	if opts.Keep <= 0 {
		opts.Keep = DefaultLiveKeep
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Live{s: s, opts: opts}
}

// Publish queues ev for the next batch.
func (l *Live) Publish(sessionID string, stamp int64, ev albedo.Event) {
	l.mu.Lock()
	l.pending = append(l.pending, liveRecord{Session: []byte(sessionID), Stamp: stamp, Event: &ev})
	l.mu.Unlock()
}

// Run sends batches on every tick and passes the other processes' to fn
// until ctx ends, then sends what is left.
func (l *Live) Run(ctx context.Context, fn func(albedo.LiveEvent)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.listen(ctx, fn)
	}()
	ticks := l.opts.Ticks
	if ticks == nil {
		t := time.NewTicker(l.opts.Every)
		defer t.Stop()
		ticks = t.C
	}
	var pruned time.Time
	for {
		select {
		case <-ctx.Done():
			last, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			l.flush(last)
			cancel()
			<-done
			return
		case now := <-ticks:
			l.flush(ctx)
			if now.Sub(pruned) >= pruneEvery {
				pruned = now
				l.prune(ctx)
			}
		}
	}
}

// flush sends the pending events as one batch, if there are any.
func (l *Live) flush(ctx context.Context) {
	l.mu.Lock()
	batch, lost := l.pending, l.lost
	l.pending = nil
	l.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	if lost {
		batch = append([]liveRecord{{Gap: true}}, batch...)
	}
	body, err := json.Marshal(batch)
	if err == nil {
		_, err = l.s.db.DB.ExecContext(ctx, `WITH b AS (INSERT INTO live_batches (sender, body) VALUES ($1, $2) RETURNING id)
			SELECT pg_notify($3::text, $1::text || ' ' || id) FROM b`, l.s.sender, body, liveChannel)
	}
	l.mu.Lock()
	l.lost = err != nil
	l.mu.Unlock()
	if err != nil {
		l.opts.Logger.Warn("send live events to the daemons sharing the store", "events", len(batch), "err", err)
	}
}

// prune deletes the batches older than Keep.
func (l *Live) prune(ctx context.Context) {
	_, err := l.s.db.DB.ExecContext(ctx, `DELETE FROM live_batches WHERE at < now() - make_interval(secs => $1)`, l.opts.Keep.Seconds())
	if err != nil {
		l.opts.Logger.Warn("prune old batches of live events", "err", err)
	}
}

// listen passes the other processes' live events to fn, on a connection
// of its own, opened again when lost (waiting up to two seconds between
// tries) with a gap, until ctx ends.
func (l *Live) listen(ctx context.Context, fn func(albedo.LiveEvent)) {
	wait := firstRetry
	lapsed := false
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, l.s.config)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+liveChannel)
		}
		if err == nil {
			wait = firstRetry
			if lapsed {
				fn(albedo.LiveEvent{Gap: true})
			}
			err = l.read(ctx, conn, fn)
		}
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			conn.Close(closeCtx)
			cancel()
		}
		if err != nil && ctx.Err() == nil {
			l.opts.Logger.Warn("listen for other daemons' live events", "err", err)
		}
		lapsed = true
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, lastRetry)
	}
}

// read passes the events of each batch conn hears of to fn, until the
// connection fails or ctx ends. A batch no longer stored is a gap.
func (l *Live) read(ctx context.Context, conn *pgx.Conn, fn func(albedo.LiveEvent)) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		sender, idText, _ := strings.Cut(n.Payload, " ")
		id, perr := strconv.ParseInt(idText, 10, 64)
		if perr != nil || sender == l.s.sender {
			continue
		}
		var body []byte
		err = conn.QueryRow(ctx, `SELECT body FROM live_batches WHERE id = $1`, id).Scan(&body)
		if errors.Is(err, pgx.ErrNoRows) {
			fn(albedo.LiveEvent{Gap: true})
			continue
		}
		if err != nil {
			return fmt.Errorf("read batch %d of live events: %w", id, err)
		}
		var batch []liveRecord
		if err := json.Unmarshal(body, &batch); err != nil {
			fn(albedo.LiveEvent{Gap: true})
			continue
		}
		for _, r := range batch {
			switch {
			case r.Gap:
				fn(albedo.LiveEvent{Gap: true})
			case r.Event != nil:
				fn(albedo.LiveEvent{SessionID: string(r.Session), Stamp: r.Stamp, Event: *r.Event})
			}
		}
	}
}
