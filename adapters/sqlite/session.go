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

// sessionRow is a row of the sessions table.
type sessionRow struct {
	bun.BaseModel `bun:"table:sessions,alias:s"`

	ID         string `bun:"id,pk"`
	Workspace  string `bun:"cwd"`
	Provider   string `bun:"provider"`
	Model      string `bun:"model"`
	Protocol   string `bun:"protocol"`
	Effort     string `bun:"effort"`
	Title      string `bun:"title"`
	Name       string `bun:"name"`
	Stage      string `bun:"stage"`
	ParentID   string `bun:"parent_id"`
	Checkpoint int64  `bun:"checkpoint"`
	KernelUsed bool   `bun:"kernel_used"`
	Revision   int64  `bun:"revision"`
	Archived   bool   `bun:"archived"`
	Compacting string `bun:"compacting"`
	CreatedAt  int64  `bun:"created_at"`
	UpdatedAt  int64  `bun:"updated_at"`
}

// sessionColumns is the select list that sessionRow.fields scans into.
const sessionColumns = `id, cwd, provider, model, protocol, effort, title,
	name, stage, parent_id, checkpoint, kernel_used, revision, created_at,
	updated_at, archived, compacting`

// fields returns pointers to the row's fields in sessionColumns order.
// Sessions are scanned by hand rather than through the bun model, which
// costs markedly more per row in a listing.
func (r *sessionRow) fields() []any {
	return []any{
		&r.ID, &r.Workspace, &r.Provider, &r.Model, &r.Protocol, &r.Effort,
		&r.Title, &r.Name, &r.Stage, &r.ParentID, &r.Checkpoint,
		&r.KernelUsed, &r.Revision, &r.CreatedAt, &r.UpdatedAt, &r.Archived,
		&r.Compacting,
	}
}

// upsertSessionSQL inserts a session or replaces every column of the
// stored one, its values bound as parameters in sessionColumns order (bun
// would splice them into the SQL text, which cannot carry every string).
const upsertSessionSQL = `INSERT INTO sessions (` + sessionColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET ` + upsertSessionSet

// args returns the row's values in sessionColumns order.
func (r *sessionRow) args() []any {
	return []any{
		r.ID, r.Workspace, r.Provider, r.Model, r.Protocol, r.Effort,
		r.Title, r.Name, r.Stage, r.ParentID, r.Checkpoint,
		r.KernelUsed, r.Revision, r.CreatedAt, r.UpdatedAt, r.Archived,
		r.Compacting,
	}
}

// upsertSessionSet replaces every column of an existing session.
const upsertSessionSet = `cwd = EXCLUDED.cwd, provider = EXCLUDED.provider,
	model = EXCLUDED.model, protocol = EXCLUDED.protocol,
	effort = EXCLUDED.effort, title = EXCLUDED.title, name = EXCLUDED.name,
	stage = EXCLUDED.stage, parent_id = EXCLUDED.parent_id,
	checkpoint = EXCLUDED.checkpoint, kernel_used = EXCLUDED.kernel_used,
	revision = EXCLUDED.revision, created_at = EXCLUDED.created_at,
	updated_at = EXCLUDED.updated_at, archived = EXCLUDED.archived,
	compacting = EXCLUDED.compacting`

// newSessionRow returns the row of s; zero times become now.
func newSessionRow(s *albedo.Session, now time.Time) sessionRow {
	return sessionRow{
		ID:         s.ID,
		Workspace:  s.Workspace,
		Provider:   s.Provider,
		Model:      s.Model,
		Protocol:   string(s.Protocol),
		Effort:     s.Effort,
		Title:      s.Title,
		Name:       s.Name,
		Stage:      string(s.Stage),
		ParentID:   s.ParentID,
		Checkpoint: s.Checkpoint,
		KernelUsed: s.KernelUsed,
		Revision:   s.Revision,
		Archived:   s.Archived,
		Compacting: s.Compacting,
		CreatedAt:  millis(s.CreatedAt, now),
		UpdatedAt:  millis(s.UpdatedAt, now),
	}
}

// session returns the session the row holds.
func (r *sessionRow) session() albedo.Session {
	return albedo.Session{
		ID:         r.ID,
		Workspace:  r.Workspace,
		Provider:   r.Provider,
		Model:      r.Model,
		Protocol:   albedo.Protocol(r.Protocol),
		Effort:     r.Effort,
		Title:      r.Title,
		Name:       r.Name,
		Stage:      albedo.Stage(r.Stage),
		ParentID:   r.ParentID,
		Checkpoint: r.Checkpoint,
		KernelUsed: r.KernelUsed,
		Revision:   r.Revision,
		Archived:   r.Archived,
		Compacting: r.Compacting,
		CreatedAt:  fromMillis(r.CreatedAt),
		UpdatedAt:  fromMillis(r.UpdatedAt),
	}
}

// Session returns one session.
func (s *Store) Session(ctx context.Context, id string) (albedo.Session, error) {
	var row sessionRow
	err := s.read.QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM sessions WHERE id = ?", id).Scan(row.fields()...)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Session{}, sessionNotFound(id)
	}
	if err != nil {
		return albedo.Session{}, fmt.Errorf("select session %s: %w", id, err)
	}
	return row.session(), nil
}

// Sessions returns every session, most recently updated first; sessions
// updated in the same millisecond are ordered by ID.
func (s *Store) Sessions(ctx context.Context) ([]albedo.Session, error) {
	sessions, err := selectSessions(ctx, s.read.NewSelect().OrderExpr("updated_at DESC, id"))
	if err != nil {
		return nil, fmt.Errorf("select sessions: %w", err)
	}
	return sessions, nil
}

// selectSessions reads the sessions that q, a query without a table or
// columns, selects.
func selectSessions(ctx context.Context, q *bun.SelectQuery) ([]albedo.Session, error) {
	rows, err := q.ColumnExpr(sessionColumns).TableExpr("sessions").Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	sessions := []albedo.Session{}
	for rows.Next() {
		var row sessionRow
		if err := rows.Scan(row.fields()...); err != nil {
			return nil, err
		}
		sessions = append(sessions, row.session())
	}
	return sessions, rows.Err()
}

// upsertSession inserts s or replaces the stored session with its ID.
func upsertSession(ctx context.Context, tx bun.Tx, row *sessionRow) error {
	if row.ID == "" {
		return albedo.Errorf(albedo.EInvalid, "a session needs an id")
	}
	_, err := tx.Tx.ExecContext(ctx, upsertSessionSQL, row.args()...)
	if err != nil {
		return fmt.Errorf("upsert session %s: %w", row.ID, err)
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
	err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)", id).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up session %s: %w", id, err)
	}
	return ok, nil
}

// sessionNotFound is the error for a missing session.
func sessionNotFound(id string) error {
	return albedo.Errorf(albedo.ENotFound, "session %s not found", id)
}
