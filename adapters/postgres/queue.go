package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// insertQueuedSQL adds one queued message and returns its id.
const insertQueuedSQL = `INSERT INTO queue (session_id, timestamp, image_mime,
	image_width, image_height, image_bytes, text, source, notes, image_data)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`

// Queued returns a session's queued messages in arrival order. A missing
// session is ENotFound.
func (s *Store) Queued(ctx context.Context, sessionID string) ([]albedo.Queued, error) {
	out, found, err := selectQueue(ctx, s.sqlDB(), sessionID)
	if err == nil && !found {
		return nil, sessionNotFound(sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("select queue of session %s: %w", sessionID, unavailable(err))
	}
	return out, nil
}

// selectQueue reads a session's queued messages in arrival order, and
// whether the session exists, in one statement: the session's row joined
// to its messages, one row with no message when it has none.
func selectQueue(ctx context.Context, db *sql.DB, sessionID string) (out []albedo.Queued, found bool, err error) {
	rows, err := db.QueryContext(ctx, `SELECT q.id, q.text, q.source, q.notes, q.image_mime,
		q.image_width, q.image_height, q.image_bytes, q.image_data, q.timestamp
		FROM sessions AS s LEFT JOIN queue AS q ON q.session_id = s.id
		WHERE s.id = $1 ORDER BY q.id`, bin(sessionID))
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		found = true
		var (
			m                    = albedo.Queued{SessionID: sessionID}
			id, stamp            sql.NullInt64
			text, source         []byte
			notes, mime, data    []byte
			width, height, bytes sql.NullInt64
		)
		if err := rows.Scan(&id, &text, &source, &notes, &mime, &width, &height, &bytes, &data, &stamp); err != nil {
			return nil, true, err
		}
		if !id.Valid {
			continue
		}
		m.ID, m.Text, m.Source, m.Timestamp = id.Int64, string(text), string(source), stamp.Int64
		if m.Notes, err = parseNotes(notes); err != nil {
			return nil, true, fmt.Errorf("read queued message %d: %w", m.ID, err)
		}
		if mime != nil {
			m.Image = &albedo.Image{MimeType: string(mime), Width: int(width.Int64), Height: int(height.Int64), Bytes: int(bytes.Int64), Data: data}
		}
		out = append(out, m)
	}
	return out, found, rows.Err()
}

// enqueue adds messages to the session's queue and returns them with their
// ID and SessionID assigned.
func enqueue(ctx context.Context, tx *sql.Tx, sessionID string, msgs []albedo.Queued) ([]albedo.Queued, error) {
	out := make([]albedo.Queued, len(msgs))
	for i, m := range msgs {
		notes, err := notesArg(m.Notes)
		if err != nil {
			return nil, fmt.Errorf("enqueue message for session %s: %w", sessionID, err)
		}
		img := imageArgs(m.Image)
		err = tx.QueryRowContext(ctx, insertQueuedSQL, bin(sessionID), m.Timestamp,
			img.mime, img.width, img.height, img.bytes,
			bin(m.Text), bin(m.Source), notes, img.data).Scan(&m.ID)
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
func dequeue(ctx context.Context, tx *sql.Tx, sessionID string, ids []int64) error {
	_, err := tx.ExecContext(ctx, "DELETE FROM queue WHERE session_id = $1 AND id = ANY($2)", bin(sessionID), ids)
	if err != nil {
		return fmt.Errorf("dequeue messages of session %s: %w", sessionID, err)
	}
	return nil
}
