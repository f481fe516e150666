package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// queueRow is a row of the queue table.
type queueRow struct {
	bun.BaseModel `bun:"table:queue,alias:q"`

	ID        int64  `bun:"id,pk,autoincrement"`
	SessionID string `bun:"session_id"`
	Text      string `bun:"text"`
	Source    string `bun:"source"`
	Notes     string `bun:"notes"`
	imageColumns
	Timestamp int64 `bun:"timestamp"`
}

// insertQueued adds one queued message and returns its id. Like insertItem
// it binds its arguments as parameters.
const insertQueued = `INSERT INTO queue (session_id, timestamp, image_mime,
	image_width, image_height, image_bytes, text, source, notes, image_data)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

// queued returns the message the row holds.
func (r *queueRow) queued() (albedo.Queued, error) {
	notes, err := parseNotes(r.Notes)
	if err != nil {
		return albedo.Queued{}, err
	}
	return albedo.Queued{
		ID:        r.ID,
		SessionID: r.SessionID,
		Text:      r.Text,
		Source:    r.Source,
		Notes:     notes,
		Image:     r.image(),
		Timestamp: r.Timestamp,
	}, nil
}

// Queued returns a session's queued messages in arrival order. A missing
// session is ENotFound.
func (s *Store) Queued(ctx context.Context, sessionID string) ([]albedo.Queued, error) {
	rows, err := selectQueue(ctx, s.read.DB, sessionID)
	if err != nil {
		return nil, fmt.Errorf("select queue of session %s: %w", sessionID, err)
	}
	if len(rows) == 0 {
		ok, err := sessionExists(ctx, s.read.DB, sessionID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, sessionNotFound(sessionID)
		}
	}
	out := make([]albedo.Queued, len(rows))
	for i := range rows {
		q, err := rows[i].queued()
		if err != nil {
			return nil, fmt.Errorf("read queued message %d of session %s: %w", rows[i].ID, sessionID, err)
		}
		out[i] = q
	}
	return out, nil
}

// enqueue adds messages to the session's queue and returns them with their
// ID and SessionID assigned.
func enqueue(ctx context.Context, tx bun.Tx, sessionID string, msgs []albedo.Queued) ([]albedo.Queued, error) {
	stmt, err := tx.Tx.PrepareContext(ctx, insertQueued)
	if err != nil {
		return nil, fmt.Errorf("prepare queue insert: %w", err)
	}
	defer stmt.Close()
	out := make([]albedo.Queued, len(msgs))
	for i, m := range msgs {
		notes, err := notesArg(m.Notes)
		if err != nil {
			return nil, fmt.Errorf("enqueue message for session %s: %w", sessionID, err)
		}
		img := imageArgs(m.Image)
		err = stmt.QueryRowContext(ctx, sessionID, m.Timestamp,
			img.mime, img.width, img.height, img.bytes,
			m.Text, m.Source, notes, img.data).Scan(&m.ID)
		if err != nil {
			return nil, fmt.Errorf("enqueue message for session %s: %w", sessionID, err)
		}
		m.SessionID = sessionID
		out[i] = m
	}
	return out, nil
}

// dequeue removes the session's queued messages with the given ids; ids
// that are gone already, or belong to another session, are skipped.
func dequeue(ctx context.Context, tx bun.Tx, sessionID string, ids []int64) error {
	args := make([]any, 0, len(ids)+1)
	args = append(args, sessionID)
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := tx.Tx.ExecContext(ctx, "DELETE FROM queue WHERE session_id = ? AND id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return fmt.Errorf("dequeue messages of session %s: %w", sessionID, err)
	}
	return nil
}

// selectQueue reads a session's queued messages in arrival order.
func selectQueue(ctx context.Context, db *sql.DB, sessionID string) ([]queueRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, session_id, text, source, notes,
		image_mime, image_width, image_height, image_bytes, image_data, timestamp
		FROM queue WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []queueRow
	for rows.Next() {
		var (
			r                    queueRow
			text, source, notes  any
			width, height, bytes sql.NullInt64
		)
		err := rows.Scan(&r.ID, &r.SessionID, &text, &source, &notes,
			&r.ImageMime, &width, &height, &bytes, &r.ImageData, &r.Timestamp)
		if err != nil {
			return nil, err
		}
		r.Text, r.Source, r.Notes = asString(text), asString(source), asString(notes)
		r.ImageWidth, r.ImageHeight, r.ImageBytes = int(width.Int64), int(height.Int64), int(bytes.Int64)
		out = append(out, r)
	}
	return out, rows.Err()
}
