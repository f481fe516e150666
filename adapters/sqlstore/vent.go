package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// ventWritten are the columns a write of a vent sets, in ventArgs order;
// the store keeps id, revision and times itself.
const ventWritten = `topic, title, message, suggestion, status, session, cwd,
	reply, resolution, resolving_session, session_title`

// ventColumns is the select list that scanVent reads.
const ventColumns = `id, ` + ventWritten + `, revision, created_at, updated_at`

// ventArgs returns the values of ventWritten for v. No filing session is
// NULL.
func (s *Store) ventArgs(v *albedo.Vent) []any {
	return []any{
		s.text(v.Topic), s.text(v.Title), s.text(v.Message), s.text(v.Suggestion), s.text(string(v.Status)),
		s.nullText(v.SessionID), s.text(v.Workspace), s.text(v.Reply), s.text(v.Resolution),
		s.text(v.ResolvingSessionID), s.text(v.SessionTitle),
	}
}

// scanVent reads one row of ventColumns.
func scanVent(row rowScanner) (albedo.Vent, error) {
	var (
		v                    albedo.Vent
		session              []byte
		createdAt, updatedAt int64
	)
	err := row.Scan(&v.ID, &v.Topic, &v.Title, &v.Message, &v.Suggestion, &v.Status, &session,
		&v.Workspace, &v.Reply, &v.Resolution, &v.ResolvingSessionID, &v.SessionTitle,
		&v.Revision, &createdAt, &updatedAt)
	v.SessionID = string(session)
	v.CreatedAt, v.UpdatedAt = time.UnixMilli(createdAt), time.UnixMilli(updatedAt)
	return v, err
}

// InsertVent adds a vent and returns it with its ID, Revision (1) and times
// assigned. An empty Status is stored as open.
func (s *Store) InsertVent(ctx context.Context, v albedo.Vent) (albedo.Vent, error) {
	if v.Status == "" {
		v.Status = albedo.VentOpen
	}
	now := time.Now().UnixMilli()
	stored, err := scanVent(s.write.DB.QueryRowContext(ctx, `INSERT INTO paperclips (`+ventWritten+`, revision, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1, $12, $12) RETURNING `+ventColumns,
		append(s.ventArgs(&v), now)...))
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("insert vent: %w", s.failed(err, ""))
	}
	return stored, nil
}

// ImportVent stores v as it is, its ID, Revision and times kept, for a
// copy of another store (albedo store copy). A vent already stored under
// that ID is left as it is. The IDs the store assigns itself go on after
// the highest one stored.
func (s *Store) ImportVent(ctx context.Context, v albedo.Vent) error {
	err := RunInTx(ctx, s.write, func(ctx context.Context, tx *sql.Tx) error {
		args := append(append([]any{v.ID}, s.ventArgs(&v)...), v.Revision, v.CreatedAt.UnixMilli(), v.UpdatedAt.UnixMilli())
		if _, err := tx.ExecContext(ctx, `INSERT INTO paperclips (id, `+ventWritten+`, revision, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			ON CONFLICT (id) DO NOTHING`, args...); err != nil || s.d.AfterVentImport == "" {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.AfterVentImport)
		return err
	})
	if err != nil {
		return fmt.Errorf("import vent %d: %w", v.ID, s.failed(err, ""))
	}
	return nil
}

// Vent returns one vent.
func (s *Store) Vent(ctx context.Context, id int64) (albedo.Vent, error) {
	v, err := scanVent(s.read.DB.QueryRowContext(ctx, "SELECT "+ventColumns+" FROM paperclips WHERE id = $1", id))
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Vent{}, ventNotFound(id)
	}
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("select vent %d: %w", id, s.failed(err, ""))
	}
	return v, nil
}

// Vents returns vents newest first (highest ID first) with ID < before
// (before <= 0: from the newest), at most limit of them (limit <= 0: all).
func (s *Store) Vents(ctx context.Context, before int64, limit int) ([]albedo.Vent, error) {
	query, args := "SELECT "+ventColumns+" FROM paperclips", []any{}
	if before > 0 {
		query, args = query+" WHERE id < $1", append(args, before)
	}
	query += " ORDER BY id DESC"
	if limit > 0 {
		args = append(args, limit)
		query += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	vents, err := scanAll(ctx, s.read.DB, scanVent, query, args...)
	if err != nil {
		return nil, fmt.Errorf("select vents before %d: %w", before, s.failed(err, ""))
	}
	return vents, nil
}

// UpdateVent writes v if the stored revision equals v.Revision, and returns
// the stored vent with its revision increased and UpdatedAt now. A missing
// vent is ENotFound and a different stored revision EStale.
func (s *Store) UpdateVent(ctx context.Context, v albedo.Vent) (albedo.Vent, error) {
	var stored albedo.Vent
	err := RunInTx(ctx, s.write, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		stored, err = s.updateVent(ctx, tx, v)
		return err
	})
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("update vent %d: %w", v.ID, s.failed(err, ""))
	}
	return stored, nil
}

// updateVent writes v inside tx if its stored revision is v.Revision, and
// returns the vent as stored.
func (s *Store) updateVent(ctx context.Context, tx *sql.Tx, v albedo.Vent) (albedo.Vent, error) {
	args := append(s.ventArgs(&v), time.Now().UnixMilli(), v.ID, v.Revision)
	stored, err := scanVent(tx.QueryRowContext(ctx, `UPDATE paperclips SET (`+ventWritten+`) =
		($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11), revision = revision + 1, updated_at = $12
		WHERE id = $13 AND revision = $14 RETURNING `+ventColumns, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Vent{}, ventMissed(ctx, tx, v.ID, v.Revision)
	}
	return stored, err
}

// DeleteVent removes a vent if its stored revision equals revision. A
// missing vent is ENotFound and a different stored revision EStale.
func (s *Store) DeleteVent(ctx context.Context, id int64, revision int64) error {
	err := RunInTx(ctx, s.write, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM paperclips WHERE id = $1 AND revision = $2", id, revision)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			return err
		}
		return ventMissed(ctx, tx, id, revision)
	})
	if err != nil {
		return fmt.Errorf("delete vent %d: %w", id, s.failed(err, ""))
	}
	return nil
}

// ventMissed explains why a conditional write to vent id at revision
// touched no row: the vent is gone (ENotFound) or has moved on (EStale).
func ventMissed(ctx context.Context, tx *sql.Tx, id, revision int64) error {
	var current int64
	err := tx.QueryRowContext(ctx, "SELECT revision FROM paperclips WHERE id = $1", id).Scan(&current)
	if errors.Is(err, sql.ErrNoRows) {
		return ventNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("look up vent %d: %w", id, err)
	}
	return albedo.Errorf(albedo.EStale, "vent #%d is at revision %d, not %d", id, current, revision)
}

// ventNotFound is the error for a missing vent.
func ventNotFound(id int64) error {
	return albedo.Errorf(albedo.ENotFound, "vent #%d not found", id)
}
