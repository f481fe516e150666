package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// The compaction queries.
const (
	selectCompactionSQL = `SELECT users, fingerprint, items, strategy, at, summary
		FROM compactions WHERE session_id = $1`
	upsertCompactionSQL = `INSERT INTO compactions (session_id, users, fingerprint, items, strategy, at, summary)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (session_id) DO UPDATE SET users = EXCLUDED.users, fingerprint = EXCLUDED.fingerprint,
			items = EXCLUDED.items, strategy = EXCLUDED.strategy, at = EXCLUDED.at, summary = EXCLUDED.summary`
)

// Compaction implements albedo.Store.
func (s *Store) Compaction(ctx context.Context, sessionID string) (albedo.Compaction, error) {
	c := albedo.Compaction{SessionID: sessionID}
	err := s.sqlDB().QueryRowContext(ctx, selectCompactionSQL, bin(sessionID)).
		Scan(&c.Users, &c.Fingerprint, &c.Items, &c.Strategy, &c.At, &c.Summary)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Compaction{}, albedo.Errorf(albedo.ENotFound, "session %s has no compaction state", sessionID)
	}
	if err != nil {
		return albedo.Compaction{}, fmt.Errorf("read compaction state of session %s: %w", sessionID, unavailable(err))
	}
	return c, nil
}

// SaveCompaction implements albedo.Store.
func (s *Store) SaveCompaction(ctx context.Context, c albedo.Compaction) error {
	err := runInTx(ctx, s.sqlDB(), nil, func(ctx context.Context, tx *sql.Tx) error {
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
		return fmt.Errorf("save compaction state of session %s: %w", c.SessionID, unavailable(err))
	}
	return nil
}

// upsertCompaction replaces the compaction state of session id with c
// inside tx; the caller checked that the session exists.
func upsertCompaction(ctx context.Context, tx *sql.Tx, id string, c albedo.Compaction) error {
	_, err := tx.ExecContext(ctx, upsertCompactionSQL, bin(id), c.Users, bin(c.Fingerprint), c.Items, bin(c.Strategy), c.At, bin(c.Summary))
	if err != nil {
		return fmt.Errorf("write compaction state of session %s: %w", id, err)
	}
	return nil
}
