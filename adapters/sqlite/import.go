package sqlite

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// ImportVent stores v as it is, its ID, Revision and times kept, for a
// copy of another store (albedo store copy). A vent already stored under
// that ID is left as it is.
func (s *Store) ImportVent(ctx context.Context, v albedo.Vent) error {
	row := newVentRow(&v)
	row.CreatedAt, row.UpdatedAt = v.CreatedAt.UnixMilli(), v.UpdatedAt.UnixMilli()
	_, err := s.write.DB.ExecContext(ctx, `INSERT INTO paperclips (id, `+ventWritten+`,
		revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		append(append([]any{row.ID}, row.writtenArgs()...), row.Revision, row.CreatedAt, row.UpdatedAt)...)
	if err != nil {
		return fmt.Errorf("import vent %d: %w", v.ID, unavailable(err))
	}
	return nil
}
