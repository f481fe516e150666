package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/albedo-agent/albedo/adapters/sqlstore"

	"github.com/uptrace/bun"
)

// NewerSchemaError reports a database file whose schema is newer than this
// binary knows. Open returns it without having modified the file.
type NewerSchemaError = sqlstore.NewerSchemaError

// checkSchema refuses a file written by a newer albedo before anything opens
// it for writing: merely opening the store's own connections would switch a
// file to WAL mode. It reads through a read-only connection that sets no
// pragma but the busy timeout, which changes nothing in the file: the last
// connection of a store closed a moment ago may still hold the file's lock
// while it folds the write-ahead log in. A missing file is schema 0.
func checkSchema(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	params := url.Values{"mode": {"ro"}, "_pragma": {fmt.Sprintf("busy_timeout(%d)", busyTimeout)}}
	db, err := sql.Open("sqlite", fileURI(path)+"?"+params.Encode())
	if err != nil {
		return fmt.Errorf("read schema version of %s: %w", path, err)
	}
	defer db.Close()
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version of %s: %w", path, err)
	}
	if version > SchemaVersion {
		return &NewerSchemaError{Database: filepath.Base(path), Version: version, Known: SchemaVersion}
	}
	return nil
}

// migrate brings the schema of the database at path up to SchemaVersion in
// one transaction: an upgrade lands whole or not at all. It checks the
// version again inside the transaction, in case another process wrote the
// file since checkSchema looked.
func migrate(ctx context.Context, db *bun.DB, path string) error {
	return sqlstore.RunInTx(ctx, db, func(ctx context.Context, tx *sql.Tx) error {
		var version int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		all := migrations()
		if err := sqlstore.Migrate(ctx, tx, filepath.Base(path), version, all[:]); err != nil {
			return err
		}
		if version == SchemaVersion {
			return nil
		}
		// PRAGMA takes no bound parameters; the version is an integer we own.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
			return fmt.Errorf("record schema version %d: %w", SchemaVersion, err)
		}
		return nil
	})
}
