package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/albedo-agent/albedo/adapters/sqlstore"

	"github.com/uptrace/bun"
)

// NewerSchemaError reports a database whose schema is newer than this
// binary knows. Open returns it without having modified the database.
type NewerSchemaError = sqlstore.NewerSchemaError

// migrationLock is the key of the advisory lock held while the schema is
// read and migrated, so that two albedos opening one empty database do not
// both create its tables.
const migrationLock int64 = 0x616c6265646f // "albedo"

// migrate brings the schema of the database named where up to
// SchemaVersion in one transaction: an upgrade lands whole or not at all.
// A newer schema is refused before anything is written.
func migrate(ctx context.Context, db *bun.DB, where string) error {
	return sqlstore.RunInTx(ctx, db, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("lock the schema: %w", err)
		}
		version, err := schemaVersion(ctx, tx)
		if err != nil {
			return err
		}
		all := migrations()
		if version == SchemaVersion {
			return nil
		}
		if err := sqlstore.Migrate(ctx, tx, "the PostgreSQL database "+where, version, all[:]); err != nil {
			return err
		}
		record := `UPDATE albedo_schema SET version = $1`
		if version == 0 {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE albedo_schema (version integer NOT NULL)`); err != nil {
				return fmt.Errorf("create the schema version table: %w", err)
			}
			record = `INSERT INTO albedo_schema (version) VALUES ($1)`
		}
		if _, err := tx.ExecContext(ctx, record, SchemaVersion); err != nil {
			return fmt.Errorf("record schema version %d: %w", SchemaVersion, err)
		}
		return nil
	})
}

// schemaVersion reads the schema version, 0 for a database without
// albedo's tables.
func schemaVersion(ctx context.Context, tx *sql.Tx) (int, error) {
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT to_regclass('albedo_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("look for the schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var version int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM albedo_schema`).Scan(&version); err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	return version, nil
}
