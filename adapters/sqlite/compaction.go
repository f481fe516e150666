package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// compactionRow is a row of the compactions table.
type compactionRow struct {
	bun.BaseModel `bun:"table:compactions"`

	SessionID   string `bun:"session_id,pk"`
	Users       int    `bun:"users"`
	Fingerprint string `bun:"fingerprint"`
	Items       int    `bun:"items"`
	Strategy    string `bun:"strategy"`
	At          int64  `bun:"at"`
	Summary     string `bun:"summary"`
}

// The compaction queries bind their values: a summary is model text, and
// bun refuses to splice text holding a NUL into SQL.
const (
	selectCompactionSQL = `SELECT session_id, users, fingerprint, items, strategy, at, summary
		FROM compactions WHERE session_id = ?`
	upsertCompactionSQL = `INSERT INTO compactions (session_id, users, fingerprint, items, strategy, at, summary)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET users = excluded.users, fingerprint = excluded.fingerprint,
			items = excluded.items, strategy = excluded.strategy, at = excluded.at, summary = excluded.summary`
)

// Compaction implements albedo.Store.
func (s *Store) Compaction(ctx context.Context, sessionID string) (albedo.Compaction, error) {
	var r compactionRow
	err := s.read.DB.QueryRowContext(ctx, selectCompactionSQL, sessionID).
		Scan(&r.SessionID, &r.Users, &r.Fingerprint, &r.Items, &r.Strategy, &r.At, &r.Summary)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Compaction{}, albedo.Errorf(albedo.ENotFound, "session %s has no compaction state", sessionID)
	}
	if err != nil {
		return albedo.Compaction{}, fmt.Errorf("read compaction state of session %s: %w", sessionID, err)
	}
	return albedo.Compaction{SessionID: r.SessionID, Summary: r.Summary, Users: r.Users, Fingerprint: r.Fingerprint,
		Items: r.Items, Strategy: r.Strategy, At: r.At}, nil
}

// SaveCompaction implements albedo.Store.
func (s *Store) SaveCompaction(ctx context.Context, c albedo.Compaction) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	err := runInTx(ctx, s.write, func(ctx context.Context, tx bun.Tx) error {
		ok, err := sessionExists(ctx, tx, c.SessionID)
		if err != nil {
			return err
		}
		if !ok {
			return sessionNotFound(c.SessionID)
		}
		return upsertCompaction(ctx, tx, c.SessionID, c)
	})
	if err != nil {
		return fmt.Errorf("save compaction state of session %s: %w", c.SessionID, err)
	}
	return nil
}

// upsertCompaction replaces the compaction state of session id with c
// inside tx; the caller checked that the session exists.
func upsertCompaction(ctx context.Context, tx bun.Tx, id string, c albedo.Compaction) error {
	_, err := tx.Tx.ExecContext(ctx, upsertCompactionSQL, id, c.Users, c.Fingerprint, c.Items, c.Strategy, c.At, c.Summary)
	if err != nil {
		return fmt.Errorf("write compaction state of session %s: %w", id, err)
	}
	return nil
}
