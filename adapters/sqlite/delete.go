package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// sessionKeyedTables lists the tables with a session_id column: every
// table whose rows belong to one session. Vents name their filing session
// in a column of another name, and outlive it.
const sessionKeyedTables = `SELECT m.name FROM sqlite_schema AS m
	JOIN pragma_table_info(m.name) AS c
	WHERE m.type = 'table' AND c.name = 'session_id'
	ORDER BY m.name`

// DeleteSession removes a session and every row of every table keyed by
// it, in one transaction. The tables are found in the schema, so a table
// added later is covered without naming it here.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	err := runInTx(ctx, s.write, func(ctx context.Context, tx bun.Tx) error {
		ok, err := sessionExists(ctx, tx.Tx, id)
		if err != nil {
			return err
		}
		if !ok {
			return sessionNotFound(id)
		}
		var tables []string
		if err := tx.NewRaw(sessionKeyedTables).Scan(ctx, &tables); err != nil {
			return fmt.Errorf("find the tables keyed by session: %w", err)
		}
		for _, table := range tables {
			// The table's name is the schema's own; the id is bound.
			stmt := `DELETE FROM "` + strings.ReplaceAll(table, `"`, `""`) + `" WHERE session_id = ?`
			if _, err := tx.Tx.ExecContext(ctx, stmt, id); err != nil {
				return fmt.Errorf("delete from %s: %w", table, err)
			}
		}
		if _, err := tx.Tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id); err != nil {
			return fmt.Errorf("delete from sessions: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, unavailable(err))
	}
	s.totals.forget(id)
	return nil
}
