package postgres

import (
	"context"
	"database/sql"
	"fmt"
)

// DeleteSession removes a session and, through the foreign keys that
// cascade from it, every row keyed by it, in one transaction. Vents keep
// the id of the session that filed them.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	err := runInTx(ctx, s.sqlDB(), nil, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = $1", bin(id))
		if err != nil {
			return fmt.Errorf("delete from sessions: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return sessionNotFound(id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, unavailable(err))
	}
	return nil
}
