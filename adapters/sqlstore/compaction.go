package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// Compaction implements albedo.Store.
func (s *Store) Compaction(ctx context.Context, sessionID string) (albedo.Compaction, error) {
	c := albedo.Compaction{SessionID: sessionID}
	err := s.read.DB.QueryRowContext(ctx, `SELECT users, fingerprint, items, strategy, at, summary
		FROM compactions WHERE session_id = $1`, s.text(sessionID)).
		Scan(&c.Users, &c.Fingerprint, &c.Items, &c.Strategy, &c.At, &c.Summary)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Compaction{}, albedo.Errorf(albedo.ENotFound, "session %s has no compaction state", sessionID)
	}
	if err != nil {
		return albedo.Compaction{}, fmt.Errorf("read compaction state of session %s: %w", sessionID, s.failed(err, ""))
	}
	return c, nil
}

// SaveCompaction implements albedo.Store. A missing session fails on the
// foreign key.
func (s *Store) SaveCompaction(ctx context.Context, c albedo.Compaction) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	if err := s.upsertCompaction(ctx, s.write.DB, c.SessionID, c); err != nil {
		return fmt.Errorf("save compaction state of session %s: %w", c.SessionID, s.failed(err, c.SessionID))
	}
	return nil
}

// upsertCompaction replaces the compaction state of session id with c.
func (s *Store) upsertCompaction(ctx context.Context, q querier, id string, c albedo.Compaction) error {
	_, err := q.ExecContext(ctx, `INSERT INTO compactions (session_id, users, fingerprint, items, strategy, at, summary)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (session_id) DO UPDATE SET users = EXCLUDED.users, fingerprint = EXCLUDED.fingerprint,
			items = EXCLUDED.items, strategy = EXCLUDED.strategy, at = EXCLUDED.at, summary = EXCLUDED.summary`,
		s.text(id), c.Users, s.text(c.Fingerprint), c.Items, s.text(c.Strategy), c.At, s.text(c.Summary))
	if err != nil {
		return fmt.Errorf("write compaction state of session %s: %w", id, err)
	}
	return nil
}
