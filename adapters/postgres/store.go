package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/adapters/sqlstore"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// maxConns bounds the store's connections to the server: enough for the
// daemon's concurrent requests, few enough that several daemons share a
// server's default connection limit.
const maxConns = 8

// connectTimeout is how long opening one connection may take before the
// server counts as unreachable.
const connectTimeout = 5 * time.Second

// Store is an albedo.Store kept in a PostgreSQL database. It is safe for
// concurrent use.
type Store struct {
	*sqlstore.Store
	db *bun.DB
	// config opens the connection that listens for other processes'
	// commits (Watch); sender names this store's own.
	config *pgx.ConnConfig
	sender string
}

// Open connects to the database that url names (a postgres:// URL or a
// key=value connection string), checks that the server answers, and
// migrates the schema to SchemaVersion. A database whose schema is newer
// than SchemaVersion is left unmodified and Open returns a
// *NewerSchemaError. Errors never show the URL's password.
func Open(ctx context.Context, url string) (*Store, error) {
	config, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open the PostgreSQL store: read its URL %s: %w", Redact(url), errors.Unwrap(err))
	}
	if config.ConnectTimeout == 0 || config.ConnectTimeout > connectTimeout {
		config.ConnectTimeout = connectTimeout
	}
	if _, given := config.RuntimeParams["synchronous_commit"]; !given {
		// A commit returns before the server has flushed it to disk, as
		// with SQLite's WAL at synchronous=NORMAL: it survives a crash of
		// the daemon; a crash of PostgreSQL or of its machine may lose the
		// last ones (up to three wal_writer_delay), never corrupts.
		// Waiting for each flush made a tool round about eight times as
		// long as on SQLite (BenchmarkStores). The URL may say
		// synchronous_commit=on.
		config.RuntimeParams["synchronous_commit"] = "off"
	}
	where := Redact(url)
	sqldb := stdlib.OpenDB(*config)
	sqldb.SetMaxOpenConns(maxConns)
	sqldb.SetMaxIdleConns(maxConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	if err := sqldb.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("open the PostgreSQL store %s: %w", where, unavailable(err))
	}
	db := bun.NewDB(sqldb, pgdialect.New())
	sender := NewOwner()
	if err := migrate(ctx, db, where); err != nil {
		db.Close()
		var newer *NewerSchemaError
		if errors.As(err, &newer) {
			return nil, newer
		}
		return nil, fmt.Errorf("open the PostgreSQL store %s: %w", where, unavailable(err))
	}
	return &Store{Store: sqlstore.New(db, db, sqlstore.Dialect{
		TextAsBytes:        true,
		OneStatementAppend: true,
		LockRow:            "FOR UPDATE",
		AfterVentImport:    `SELECT setval(pg_get_serial_sequence('paperclips', 'id'), (SELECT MAX(id) FROM paperclips))`,
		Unavailable:        unavailable,
		ForeignKey:         foreignKeyViolation,
		Leases:             true,
		Notify:             commitChannel,
		Sender:             sender,
	}), db: db, config: config, sender: sender}, nil
}
