package postgres

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
func ventArgs(v *albedo.Vent) []any {
	return []any{
		bin(v.Topic), bin(v.Title), bin(v.Message), bin(v.Suggestion), bin(string(v.Status)), nullBin(v.SessionID),
		bin(v.Workspace), bin(v.Reply), bin(v.Resolution), bin(v.ResolvingSessionID), bin(v.SessionTitle),
	}
}

// scanVent reads one row of ventColumns.
func scanVent(row rowScanner) (albedo.Vent, error) {
	var (
		v                    albedo.Vent
		status               string
		session              []byte
		createdAt, updatedAt int64
	)
	err := row.Scan(&v.ID, &v.Topic, &v.Title, &v.Message, &v.Suggestion, &status, &session,
		&v.Workspace, &v.Reply, &v.Resolution, &v.ResolvingSessionID, &v.SessionTitle,
		&v.Revision, &createdAt, &updatedAt)
	if err != nil {
		return albedo.Vent{}, err
	}
	v.Status, v.SessionID = albedo.VentStatus(status), string(session)
	v.CreatedAt, v.UpdatedAt = time.UnixMilli(createdAt), time.UnixMilli(updatedAt)
	return v, nil
}

// InsertVent adds a vent and returns it with its ID, Revision (1) and times
// assigned. An empty Status is stored as open.
func (s *Store) InsertVent(ctx context.Context, v albedo.Vent) (albedo.Vent, error) {
	if v.Status == "" {
		v.Status = albedo.VentOpen
	}
	now := time.Now().UnixMilli()
	row := s.sqlDB().QueryRowContext(ctx, `INSERT INTO paperclips (`+ventWritten+`, revision, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1, $12, $12) RETURNING `+ventColumns,
		append(ventArgs(&v), now)...)
	stored, err := scanVent(row)
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("insert vent: %w", unavailable(err))
	}
	return stored, nil
}

// Vent returns one vent.
func (s *Store) Vent(ctx context.Context, id int64) (albedo.Vent, error) {
	v, err := scanVent(s.sqlDB().QueryRowContext(ctx, "SELECT "+ventColumns+" FROM paperclips WHERE id = $1", id))
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Vent{}, ventNotFound(id)
	}
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("select vent %d: %w", id, unavailable(err))
	}
	return v, nil
}

// Vents returns vents newest first (highest ID first) with ID < before
// (before <= 0: from the newest), at most limit of them (limit <= 0: all).
func (s *Store) Vents(ctx context.Context, before int64, limit int) ([]albedo.Vent, error) {
	q := s.db.NewSelect().ColumnExpr(ventColumns).TableExpr("paperclips").Order("id DESC")
	if before > 0 {
		q = q.Where("id < ?", before)
	}
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	rows, err := q.Rows(ctx)
	if err != nil {
		return nil, fmt.Errorf("select vents before %d: %w", before, unavailable(err))
	}
	defer rows.Close()
	vents := []albedo.Vent{}
	for rows.Next() {
		v, err := scanVent(rows)
		if err != nil {
			return nil, fmt.Errorf("scan vents before %d: %w", before, unavailable(err))
		}
		vents = append(vents, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select vents before %d: %w", before, unavailable(err))
	}
	return vents, nil
}

// UpdateVent writes v if the stored revision equals v.Revision, and returns
// the stored vent with its revision increased and UpdatedAt now. A missing
// vent is ENotFound and a different stored revision EStale.
func (s *Store) UpdateVent(ctx context.Context, v albedo.Vent) (albedo.Vent, error) {
	var stored albedo.Vent
	err := runInTx(ctx, s.sqlDB(), nil, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		stored, err = updateVent(ctx, tx, v)
		return err
	})
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("update vent %d: %w", v.ID, unavailable(err))
	}
	return stored, nil
}

// updateVent writes v inside tx if its stored revision is v.Revision, and
// returns the vent as stored.
func updateVent(ctx context.Context, tx *sql.Tx, v albedo.Vent) (albedo.Vent, error) {
	args := append(ventArgs(&v), time.Now().UnixMilli(), v.ID, v.Revision)
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
	err := runInTx(ctx, s.sqlDB(), nil, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM paperclips WHERE id = $1 AND revision = $2", id, revision)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			return ventMissed(ctx, tx, id, revision)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete vent %d: %w", id, unavailable(err))
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
