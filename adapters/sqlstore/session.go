package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// sessionColumns is the select list that scanSession reads, and the
// column list of upsertSessionSQL.
const sessionColumns = `id, cwd, provider, model, protocol, effort, title,
	name, stage, parent_id, checkpoint, kernel_used, revision, created_at,
	updated_at, archived, compacting`

// upsertSessionSQL inserts a session or replaces every column of the
// stored one, its values bound in sessionColumns order.
const upsertSessionSQL = `INSERT INTO sessions (` + sessionColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
	ON CONFLICT (id) DO UPDATE SET cwd = EXCLUDED.cwd, provider = EXCLUDED.provider,
	model = EXCLUDED.model, protocol = EXCLUDED.protocol,
	effort = EXCLUDED.effort, title = EXCLUDED.title, name = EXCLUDED.name,
	stage = EXCLUDED.stage, parent_id = EXCLUDED.parent_id,
	checkpoint = EXCLUDED.checkpoint, kernel_used = EXCLUDED.kernel_used,
	revision = EXCLUDED.revision, created_at = EXCLUDED.created_at,
	updated_at = EXCLUDED.updated_at, archived = EXCLUDED.archived,
	compacting = EXCLUDED.compacting`

// scanSession reads one row of sessionColumns. Sessions are scanned by
// hand rather than through a bun model, which costs markedly more per row
// in a listing.
func scanSession(row rowScanner) (albedo.Session, error) {
	var (
		s                    albedo.Session
		createdAt, updatedAt int64
	)
	err := row.Scan(&s.ID, &s.Workspace, &s.Provider, &s.Model, &s.Protocol, &s.Effort,
		&s.Title, &s.Name, &s.Stage, &s.ParentID, &s.Checkpoint, &s.KernelUsed, &s.Revision,
		&createdAt, &updatedAt, &s.Archived, &s.Compacting)
	s.CreatedAt, s.UpdatedAt = time.UnixMilli(createdAt), time.UnixMilli(updatedAt)
	return s, err
}

// Session returns one session.
func (s *Store) Session(ctx context.Context, id string) (albedo.Session, error) {
	sess, err := scanSession(s.read.DB.QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM sessions WHERE id = $1", s.text(id)))
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Session{}, sessionNotFound(id)
	}
	if err != nil {
		return albedo.Session{}, fmt.Errorf("select session %s: %w", id, s.failed(err, ""))
	}
	return sess, nil
}

// Sessions returns every session, most recently updated first; sessions
// updated in the same millisecond are ordered by ID, byte by byte.
func (s *Store) Sessions(ctx context.Context) ([]albedo.Session, error) {
	sessions, err := scanAll(ctx, s.read.DB, scanSession, "SELECT "+sessionColumns+" FROM sessions ORDER BY updated_at DESC, id")
	if err != nil {
		return nil, fmt.Errorf("select sessions: %w", s.failed(err, ""))
	}
	return sessions, nil
}

// upsertSession inserts sess or replaces the stored session with its ID;
// zero times are stored as now.
func (s *Store) upsertSession(ctx context.Context, tx *sql.Tx, sess *albedo.Session, now time.Time) error {
	if sess.ID == "" {
		return albedo.Errorf(albedo.EInvalid, "a session needs an id")
	}
	_, err := tx.ExecContext(ctx, upsertSessionSQL,
		s.text(sess.ID), s.text(sess.Workspace), s.text(sess.Provider), s.text(sess.Model), s.text(string(sess.Protocol)),
		s.text(sess.Effort), s.text(sess.Title), s.text(sess.Name), s.text(string(sess.Stage)), s.text(sess.ParentID),
		sess.Checkpoint, sess.KernelUsed, sess.Revision, millis(sess.CreatedAt, now), millis(sess.UpdatedAt, now),
		sess.Archived, s.text(sess.Compacting))
	if err != nil {
		return fmt.Errorf("upsert session %s: %w", sess.ID, err)
	}
	return nil
}

// sessionExists reports whether the session with id is stored.
func (s *Store) sessionExists(ctx context.Context, q querier, id string) (bool, error) {
	var ok bool
	err := q.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1)", s.text(id)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up session %s: %w", id, err)
	}
	return ok, nil
}

// millis returns t's Unix milliseconds, or now's when t is zero.
func millis(t, now time.Time) int64 {
	if t.IsZero() {
		t = now
	}
	return t.UnixMilli()
}

// DeleteSession removes a session and, through the foreign keys that
// cascade from it, every row keyed by it, in one statement. Vents keep the
// id of the session that filed them.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	res, err := s.write.DB.ExecContext(ctx, "DELETE FROM sessions WHERE id = $1", s.text(id))
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, s.failed(err, ""))
	}
	if n == 0 {
		return sessionNotFound(id)
	}
	s.totals.forget(id)
	return nil
}
