package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/albedo-agent/albedo/adapters/sqlstore"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// readConns is the size of the read pool. Reads in WAL mode run in parallel
// with each other and with the writer; a few connections cover the daemon's
// concurrent requests without holding many page caches.
const readConns = 4

// busyTimeout is how long, in milliseconds, a connection waits for a lock
// held by another process before failing with SQLITE_BUSY.
const busyTimeout = 5000

// readCacheKiB is the page cache of each read connection, in KiB. It holds
// a long transcript, so rereading one between writes costs no file reads.
const readCacheKiB = 16 << 10

// Store is an albedo.Store kept in one SQLite database file. It is safe for
// concurrent use.
type Store struct {
	*sqlstore.Store
	// write holds the only connection that writes. Its transactions begin
	// IMMEDIATE, taking the write lock up front.
	write *bun.DB
	// read serves every query that changes nothing.
	read *bun.DB
}

// Open opens the store in the database file at path, creating the file when
// it is missing, and migrates its schema to SchemaVersion. A file whose
// schema is newer than SchemaVersion is left unmodified and Open returns a
// *NewerSchemaError.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := checkSchema(ctx, abs); err != nil {
		return nil, err
	}
	write, err := openDB(ctx, abs, 1, url.Values{"_txlock": {"immediate"}})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	if err := migrate(ctx, write, abs); err != nil {
		write.Close()
		var newer *NewerSchemaError
		if errors.As(err, &newer) {
			return nil, err
		}
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	read, err := openDB(ctx, abs, readConns, url.Values{"_pragma": {
		"query_only(1)",
		fmt.Sprintf("cache_size(-%d)", readCacheKiB),
	}})
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	// Writes run one at a time on one connection, and albedo is the only
	// program that writes sessions: the ledger's sums can be kept.
	return &Store{Store: sqlstore.New(write, read, sqlstore.Dialect{
		OneWriter:   true,
		Unavailable: unavailable,
		ForeignKey:  foreignKeyViolation,
	}), write: write, read: read}, nil
}

// openDB opens a pool of up to conns connections to the database at path.
// The driver applies the DSN's _pragma parameters to every connection it
// opens: the store's own, then those in extra, with extra's other
// parameters.
func openDB(ctx context.Context, path string, conns int, extra url.Values) (*bun.DB, error) {
	params := url.Values{"_pragma": {
		fmt.Sprintf("busy_timeout(%d)", busyTimeout),
		"journal_mode(WAL)",
		"foreign_keys(ON)",
		"synchronous(NORMAL)",
	}}
	for key, values := range extra {
		params[key] = append(params[key], values...)
	}
	sqldb, err := sql.Open("sqlite", fileURI(path)+"?"+params.Encode())
	if err != nil {
		return nil, err
	}
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	sqldb.SetConnMaxLifetime(0)
	sqldb.SetConnMaxIdleTime(0)
	if err := sqldb.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, err
	}
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

// fileURI returns the SQLite URI naming the file at the absolute path, with
// the characters that URIs reserve escaped.
func fileURI(path string) string {
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath()
}
