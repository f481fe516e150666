package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// Queued returns a session's queued messages in arrival order. A missing
// session is ENotFound. One statement reads both: the session's row joined
// to its messages, one row with no message when it has none.
func (s *Store) Queued(ctx context.Context, sessionID string) ([]albedo.Queued, error) {
	rows, err := scanAll(ctx, s.read.DB, func(row rowScanner) (albedo.Queued, error) {
		var (
			m                    = albedo.Queued{SessionID: sessionID}
			id, stamp            sql.NullInt64
			text, source         []byte
			notes, mime, data    []byte
			width, height, bytes sql.NullInt64
		)
		if err := row.Scan(&id, &text, &source, &notes, &mime, &width, &height, &bytes, &data, &stamp); err != nil {
			return m, err
		}
		m.ID, m.Text, m.Source, m.Timestamp = id.Int64, string(text), string(source), stamp.Int64
		if mime != nil {
			m.Image = &albedo.Image{MimeType: string(mime), Width: int(width.Int64), Height: int(height.Int64), Bytes: int(bytes.Int64), Data: data}
		}
		var err error
		if m.Notes, err = parseNotes(string(notes)); err != nil {
			return m, fmt.Errorf("read queued message %d: %w", m.ID, err)
		}
		return m, nil
	}, `SELECT q.id, q.text, q.source, q.notes, q.image_mime,
		q.image_width, q.image_height, q.image_bytes, q.image_data, q.timestamp
		FROM sessions AS s LEFT JOIN queue AS q ON q.session_id = s.id
		WHERE s.id = $1 ORDER BY q.id`, s.text(sessionID))
	if err != nil {
		return nil, fmt.Errorf("select queue of session %s: %w", sessionID, s.failed(err, ""))
	}
	if len(rows) == 0 {
		return nil, sessionNotFound(sessionID)
	}
	if rows[0].ID == 0 {
		return []albedo.Queued{}, nil
	}
	return rows, nil
}

// enqueue adds messages to the session's queue and returns them with their
// ID and SessionID assigned.
func (s *Store) enqueue(ctx context.Context, tx *sql.Tx, sessionID string, msgs []albedo.Queued) ([]albedo.Queued, error) {
	out := make([]albedo.Queued, len(msgs))
	for i, m := range msgs {
		notes, err := s.notesArg(m.Notes)
		if err != nil {
			return nil, fmt.Errorf("enqueue message for session %s: %w", sessionID, err)
		}
		img := s.imageArgs(m.Image)
		err = tx.QueryRowContext(ctx, `INSERT INTO queue (session_id, timestamp, image_mime,
			image_width, image_height, image_bytes, text, source, notes, image_data)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
			s.text(sessionID), m.Timestamp, img.mime, img.width, img.height, img.bytes,
			s.text(m.Text), s.text(m.Source), notes, img.data).Scan(&m.ID)
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
func (s *Store) dequeue(ctx context.Context, tx *sql.Tx, sessionID string, ids []int64) error {
	args := make([]any, 0, len(ids)+1)
	args = append(args, s.text(sessionID))
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM queue WHERE session_id = $1 AND id IN ("+params(2, len(ids))+")", args...)
	if err != nil {
		return fmt.Errorf("dequeue messages of session %s: %w", sessionID, err)
	}
	return nil
}
