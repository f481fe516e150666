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
	out, err := selectQueue(ctx, s.sqlDB(), sessionID)
	if err == nil && len(out) == 0 {
		var ok bool
		if ok, err = sessionExists(ctx, s.sqlDB(), sessionID); err == nil && !ok {
			return nil, sessionNotFound(sessionID)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("select queue of session %s: %w", sessionID, unavailable(err))
	}
	return out, nil
}

// selectQueue reads a session's queued messages in arrival order.
func selectQueue(ctx context.Context, db *sql.DB, sessionID string) ([]albedo.Queued, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, text, source, notes, image_mime,
		image_width, image_height, image_bytes, image_data, timestamp
		FROM queue WHERE session_id = $1 ORDER BY id`, bin(sessionID))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []albedo.Queued
	for rows.Next() {
		var (
			m                    = albedo.Queued{SessionID: sessionID}
			notes, mime, data    []byte
			width, height, bytes int
		)
		err := rows.Scan(&m.ID, &m.Text, &m.Source, &notes, &mime, &width, &height, &bytes, &data, &m.Timestamp)
		if err != nil {
			return nil, err
		}
		if m.Notes, err = parseNotes(notes); err != nil {
			return nil, fmt.Errorf("read queued message %d: %w", m.ID, err)
		}
		if mime != nil {
			m.Image = &albedo.Image{MimeType: string(mime), Width: width, Height: height, Bytes: bytes, Data: data}
		}
		out = append(out, m)
	}
	return out, rows.Err()
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
