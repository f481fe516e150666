package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// ImportVent stores v as it is, its ID, Revision and times kept, for a
// copy of another store (albedo store copy). A vent already stored under
// that ID is left as it is. The IDs the store assigns itself go on after
// the highest one stored.
func (s *Store) ImportVent(ctx context.Context, v albedo.Vent) error {
	err := runInTx(ctx, s.sqlDB(), nil, func(ctx context.Context, tx *sql.Tx) error {
		args := append(append([]any{v.ID}, ventArgs(&v)...), v.Revision, v.CreatedAt.UnixMilli(), v.UpdatedAt.UnixMilli())
		if _, err := tx.ExecContext(ctx, `INSERT INTO paperclips (id, `+ventWritten+`, revision, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			ON CONFLICT (id) DO NOTHING`, args...); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('paperclips', 'id'),
			(SELECT MAX(id) FROM paperclips))`)
		return err
	})
	if err != nil {
		return fmt.Errorf("import vent %d: %w", v.ID, unavailable(err))
	}
	return nil
}
