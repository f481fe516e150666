package postgres

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

// sessionArgs returns the values of s in sessionColumns order; zero times
// are stored as now.
func sessionArgs(s *albedo.Session, now time.Time) []any {
	return []any{
		bin(s.ID), bin(s.Workspace), bin(s.Provider), bin(s.Model), bin(string(s.Protocol)), bin(s.Effort),
		bin(s.Title), bin(s.Name), bin(string(s.Stage)), bin(s.ParentID), s.Checkpoint,
		s.KernelUsed, s.Revision, millis(s.CreatedAt, now), millis(s.UpdatedAt, now), s.Archived,
		bin(s.Compacting),
	}
}

// rowScanner is a *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

// scanSession reads one row of sessionColumns.
func scanSession(row rowScanner) (albedo.Session, error) {
	var (
		s                    albedo.Session
		protocol, stage      string
		createdAt, updatedAt int64
	)
	err := row.Scan(&s.ID, &s.Workspace, &s.Provider, &s.Model, &protocol, &s.Effort,
		&s.Title, &s.Name, &stage, &s.ParentID, &s.Checkpoint, &s.KernelUsed, &s.Revision,
		&createdAt, &updatedAt, &s.Archived, &s.Compacting)
	if err != nil {
		return albedo.Session{}, err
	}
	s.Protocol, s.Stage = albedo.Protocol(protocol), albedo.Stage(stage)
	s.CreatedAt, s.UpdatedAt = time.UnixMilli(createdAt), time.UnixMilli(updatedAt)
	return s, nil
}

// Session returns one session.
func (s *Store) Session(ctx context.Context, id string) (albedo.Session, error) {
	row := s.sqlDB().QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM sessions WHERE id = $1", bin(id))
	sess, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Session{}, sessionNotFound(id)
	}
	if err != nil {
		return albedo.Session{}, fmt.Errorf("select session %s: %w", id, unavailable(err))
	}
	return sess, nil
}

// Sessions returns every session, most recently updated first; sessions
// updated in the same millisecond are ordered by ID, byte by byte.
func (s *Store) Sessions(ctx context.Context) ([]albedo.Session, error) {
	rows, err := s.sqlDB().QueryContext(ctx, "SELECT "+sessionColumns+" FROM sessions ORDER BY updated_at DESC, id")
	if err != nil {
		return nil, fmt.Errorf("select sessions: %w", unavailable(err))
	}
	defer rows.Close()
	sessions := []albedo.Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("scan sessions: %w", unavailable(err))
		}
		sessions = append(sessions, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select sessions: %w", unavailable(err))
	}
	return sessions, nil
}

// upsertSession inserts s or replaces the stored session with its ID.
func upsertSession(ctx context.Context, tx *sql.Tx, s *albedo.Session, now time.Time) error {
	if s.ID == "" {
		return albedo.Errorf(albedo.EInvalid, "a session needs an id")
	}
	if _, err := tx.ExecContext(ctx, upsertSessionSQL, sessionArgs(s, now)...); err != nil {
		return fmt.Errorf("upsert session %s: %w", s.ID, err)
	}
	return nil
}

// rowQuerier runs a query that returns one row: a *sql.DB or a *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sessionExists reports whether the session with id is stored.
func sessionExists(ctx context.Context, db rowQuerier, id string) (bool, error) {
	var ok bool
	err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1)", bin(id)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up session %s: %w", id, err)
	}
	return ok, nil
}

// sessionNotFound is the error for a missing session.
func sessionNotFound(id string) error {
	return albedo.Errorf(albedo.ENotFound, "session %s not found", id)
}
