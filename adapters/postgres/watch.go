package postgres

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/adapters/sqlstore"
	"github.com/albedo-agent/albedo/albedo"

	"github.com/jackc/pgx/v5"
)

// commitChannel is the channel on which every commit of items says which
// session grew to which Seq (sqlstore.Notification).
const commitChannel = "albedo_items"

// interruptChannel is the channel on which a daemon asks the one running
// a session's turn to interrupt it; the payload is the session's id in
// hex.
const interruptChannel = "albedo_interrupts"

// Interrupt asks whichever process runs the session's turn to interrupt
// it.
func (s *Store) Interrupt(ctx context.Context, sessionID string) error {
	_, err := s.db.DB.ExecContext(ctx, `SELECT pg_notify($1::text, $2::text)`, interruptChannel, hex.EncodeToString([]byte(sessionID)))
	if err != nil {
		return fmt.Errorf("ask for the interrupt of session %s: %w", sessionID, unavailable(err))
	}
	return nil
}

// wakeChannel is the channel on which a daemon that queued a message for
// a session whose lease another holds wakes the others; the payload is
// the session's id in hex.
const wakeChannel = "albedo_wakes"

// Wake tells every process listening that a message was queued for the
// session.
func (s *Store) Wake(ctx context.Context, sessionID string) error {
	_, err := s.db.DB.ExecContext(ctx, `SELECT pg_notify($1::text, $2::text)`, wakeChannel, hex.EncodeToString([]byte(sessionID)))
	if err != nil {
		return fmt.Errorf("wake the daemons for session %s: %w", sessionID, unavailable(err))
	}
	return nil
}

// Backoff of the listening connection's reconnects.
const (
	firstRetry = 100 * time.Millisecond
	lastRetry  = 2 * time.Second
)

// Changes implements the domain's port for word of other processes'
// commits.
var _ albedo.Changes = (*Store)(nil)

// Watch calls fn with the session and last Seq of each commit of items
// that another process made in the database, on one connection of its
// own that listens for them, until ctx ends. A lost connection is opened
// again (waiting up to two seconds between tries); once it is, fn is
// called with "" and 0: commits made meanwhile were not heard of.
func (s *Store) Watch(ctx context.Context, fn func(sessionID string, seq int64)) {
	wait := firstRetry
	lapsed := false
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, s.config)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+commitChannel+"; LISTEN "+interruptChannel+"; LISTEN "+wakeChannel)
		}
		if err == nil {
			wait = firstRetry
			if lapsed {
				fn("", 0)
			}
			s.listen(ctx, conn, fn)
		}
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			conn.Close(closeCtx)
			cancel()
		}
		lapsed = true
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, lastRetry)
	}
}

// listen passes conn's notifications of other processes' commits to fn
// until the connection fails or ctx ends; Watch then opens another or
// stops.
func (s *Store) listen(ctx context.Context, conn *pgx.Conn, fn func(string, int64)) {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		if n.Channel == interruptChannel || n.Channel == wakeChannel {
			seq := int64(albedo.InterruptSeq)
			if n.Channel == wakeChannel {
				seq = albedo.WakeSeq
			}
			if id, err := hex.DecodeString(n.Payload); err == nil && len(id) > 0 {
				fn(string(id), seq)
			}
			continue
		}
		note, err := sqlstore.ParseNotification(n.Payload)
		if err != nil || note.Sender == s.sender {
			continue
		}
		fn(note.SessionID, note.Seq)
	}
}
