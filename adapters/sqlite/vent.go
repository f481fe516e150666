package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// ventRow is a row of the paperclips table, the vent ledger. Session is
// NULL when no session filed the vent.
type ventRow struct {
	bun.BaseModel `bun:"table:paperclips,alias:p"`

	ID               int64  `bun:"id,pk,autoincrement"`
	Topic            string `bun:"topic"`
	Title            string `bun:"title"`
	Message          string `bun:"message"`
	Suggestion       string `bun:"suggestion"`
	Status           string `bun:"status"`
	Session          string `bun:"session,nullzero"`
	Workspace        string `bun:"cwd"`
	Reply            string `bun:"reply"`
	Resolution       string `bun:"resolution"`
	ResolvingSession string `bun:"resolving_session"`
	SessionTitle     string `bun:"session_title"`
	Revision         int64  `bun:"revision"`
	CreatedAt        int64  `bun:"created_at"`
	UpdatedAt        int64  `bun:"updated_at"`
}

// ventWritten are the columns a write of a vent sets, in writtenArgs
// order; the store keeps id, revision and times itself.
const ventWritten = `topic, title, message, suggestion, status, session, cwd,
	reply, resolution, resolving_session, session_title`

// ventColumns is the select list that ventRow.fields scans into.
const ventColumns = `id, ` + ventWritten + `, revision, created_at, updated_at`

// writtenArgs returns the row's values of ventWritten, bound as
// parameters: bun would splice them into the SQL text, which cannot carry
// every string. An empty session is NULL.
func (r *ventRow) writtenArgs() []any {
	return []any{
		r.Topic, r.Title, r.Message, r.Suggestion, r.Status, textArg(r.Session),
		r.Workspace, r.Reply, r.Resolution, r.ResolvingSession, r.SessionTitle,
	}
}

// fields returns pointers to the row's fields in ventColumns order.
func (r *ventRow) fields() []any {
	return []any{
		&r.ID, &r.Topic, &r.Title, &r.Message, &r.Suggestion, &r.Status,
		(*nullText)(&r.Session), &r.Workspace, &r.Reply, &r.Resolution,
		&r.ResolvingSession, &r.SessionTitle, &r.Revision, &r.CreatedAt, &r.UpdatedAt,
	}
}

// nullText scans a nullable text column into a string: "" for NULL.
type nullText string

// Scan implements sql.Scanner.
func (t *nullText) Scan(v any) error {
	*t = nullText(asString(v))
	return nil
}

// newVentRow returns the row of v.
func newVentRow(v *albedo.Vent) ventRow {
	return ventRow{
		ID:               v.ID,
		Topic:            v.Topic,
		Title:            v.Title,
		Message:          v.Message,
		Suggestion:       v.Suggestion,
		Status:           string(v.Status),
		Session:          v.SessionID,
		Workspace:        v.Workspace,
		Reply:            v.Reply,
		Resolution:       v.Resolution,
		ResolvingSession: v.ResolvingSessionID,
		SessionTitle:     v.SessionTitle,
		Revision:         v.Revision,
	}
}

// vent returns the vent the row holds.
func (r *ventRow) vent() albedo.Vent {
	return albedo.Vent{
		ID:                 r.ID,
		Topic:              r.Topic,
		Title:              r.Title,
		Message:            r.Message,
		Suggestion:         r.Suggestion,
		Status:             albedo.VentStatus(r.Status),
		SessionID:          r.Session,
		Workspace:          r.Workspace,
		Reply:              r.Reply,
		Resolution:         r.Resolution,
		ResolvingSessionID: r.ResolvingSession,
		SessionTitle:       r.SessionTitle,
		Revision:           r.Revision,
		CreatedAt:          fromMillis(r.CreatedAt),
		UpdatedAt:          fromMillis(r.UpdatedAt),
	}
}

// InsertVent adds a vent and returns it with its ID, Revision (1) and times
// assigned. An empty Status is stored as open.
func (s *Store) InsertVent(ctx context.Context, v albedo.Vent) (albedo.Vent, error) {
	row := newVentRow(&v)
	if row.Status == "" {
		row.Status = string(albedo.VentOpen)
	}
	row.ID = 0
	row.Revision = 1
	now := time.Now().UnixMilli()
	row.CreatedAt, row.UpdatedAt = now, now
	err := s.write.DB.QueryRowContext(ctx, `INSERT INTO paperclips (`+ventWritten+`,
		revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		RETURNING id`, append(row.writtenArgs(), row.Revision, row.CreatedAt, row.UpdatedAt)...).Scan(&row.ID)
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("insert vent: %w", unavailable(err))
	}
	return row.vent(), nil
}

// Vent returns one vent.
func (s *Store) Vent(ctx context.Context, id int64) (albedo.Vent, error) {
	var row ventRow
	err := s.read.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Vent{}, ventNotFound(id)
	}
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("select vent %d: %w", id, err)
	}
	return row.vent(), nil
}

// Vents returns vents newest first (highest ID first) with ID < before
// (before <= 0: from the newest), at most limit of them (limit <= 0: all).
func (s *Store) Vents(ctx context.Context, before int64, limit int) ([]albedo.Vent, error) {
	var rows []ventRow
	q := s.read.NewSelect().Model(&rows).Order("id DESC")
	if before > 0 {
		q = q.Where("id < ?", before)
	}
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("select vents before %d: %w", before, err)
	}
	vents := make([]albedo.Vent, len(rows))
	for i := range rows {
		vents[i] = rows[i].vent()
	}
	return vents, nil
}

// UpdateVent writes v if the stored revision equals v.Revision, and returns
// the stored vent with its revision increased and UpdatedAt now. A missing
// vent is ENotFound and a different stored revision EStale.
func (s *Store) UpdateVent(ctx context.Context, v albedo.Vent) (albedo.Vent, error) {
	var stored albedo.Vent
	err := runInTx(ctx, s.write, func(ctx context.Context, tx bun.Tx) error {
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
func updateVent(ctx context.Context, tx bun.Tx, v albedo.Vent) (albedo.Vent, error) {
	row := newVentRow(&v)
	// Every column but the ones the store keeps: id, revision and times.
	args := append(row.writtenArgs(), time.Now().UnixMilli(), v.ID, v.Revision)
	err := tx.Tx.QueryRowContext(ctx, `UPDATE paperclips SET (`+ventWritten+`) =
		(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), revision = revision + 1, updated_at = ?
		WHERE id = ? AND revision = ? RETURNING `+ventColumns, args...).Scan(row.fields()...)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Vent{}, ventMissed(ctx, tx, v.ID, v.Revision)
	}
	if err != nil {
		return albedo.Vent{}, err
	}
	return row.vent(), nil
}

// DeleteVent removes a vent if its stored revision equals revision. A
// missing vent is ENotFound and a different stored revision EStale.
func (s *Store) DeleteVent(ctx context.Context, id int64, revision int64) error {
	err := runInTx(ctx, s.write, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().Table("paperclips").
			Where("id = ?", id).Where("revision = ?", revision).
			Exec(ctx)
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
func ventMissed(ctx context.Context, tx bun.Tx, id, revision int64) error {
	var current int64
	err := tx.NewSelect().Table("paperclips").Column("revision").
		Where("id = ?", id).Scan(ctx, &current)
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
