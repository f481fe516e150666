package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// Store implements the domain's storage port.
var _ albedo.Store = (*Store)(nil)

// Dialect is what differs between the databases a Store runs on.
type Dialect struct {
	// TextAsBytes binds every string as bytes: PostgreSQL keeps them in
	// bytea, whose text type refuses NUL and invalid UTF-8.
	TextAsBytes bool
	// OneStatementAppend has the statement that appends items number them
	// itself, drawing the numbers from the counter on the session's row
	// (sessions.last_seq, which it advances), so that a commit of items
	// alone is one statement and one round trip; its VALUES list then
	// names its types (PostgreSQL infers none there). Without it, a commit
	// reads the last Seq first, in its transaction: SQLite would copy
	// every value of an INSERT that reads its own table through a
	// temporary table.
	OneStatementAppend bool
	// LockRow ends a read of the session row a commit expects at a
	// revision, to lock it until the commit ends ("FOR UPDATE"); "" where
	// writes run one at a time anyway.
	LockRow string
	// AfterVentImport runs after a vent is stored with its own ID, so that
	// the IDs the database assigns go on after it; "" when it does so by
	// itself.
	AfterVentImport string
	// OneWriter says that this process is the database's only writer, so
	// the ledger's usage sums are read once and then kept up to date.
	OneWriter bool
	// Unavailable turns a failure that means the database cannot serve the
	// store now into an EStoreUnavailable error; it returns other errors as
	// they are.
	Unavailable func(error) error
	// ForeignKey reports whether err is a foreign key violation.
	ForeignKey func(error) bool
	// Leases says that the database has the leases table (PostgreSQL's
	// schema), so that a commit may be fenced by a lease.
	Leases bool
	// Notify, when not empty, is the PostgreSQL channel on which every
	// commit of items says, as it lands, which session grew to which Seq
	// (see Notification), for the other processes sharing the database.
	Notify string
	// Sender names this store's process in its notifications, so that it
	// can tell its own.
	Sender string
}

// Store is an albedo.Store kept in an SQL database. It is safe for
// concurrent use.
type Store struct {
	// write runs every statement that writes; read every other one (the
	// same pool where the database serves both alike).
	write, read *bun.DB
	d           Dialect
	// writing is held for the whole of every write that numbers items, so
	// that two commits of this process never pick the same Seq.
	writing sync.Mutex
	// totals holds the usage sums of the request ledger (Dialect.OneWriter).
	totals requestTotals
}

// New returns the store on write and read, whose schema is the current
// one. The store closes them.
func New(write, read *bun.DB, d Dialect) *Store {
	return &Store{write: write, read: read, d: d}
}

// Close closes the store's connections, the writer last, so that SQLite's
// final checkpoint folds the write-ahead log into the database file.
func (s *Store) Close() error {
	if s.read == s.write {
		return s.write.Close()
	}
	return errors.Join(s.read.Close(), s.write.Close())
}

// text returns v as the value of a string column.
func (s *Store) text(v string) any {
	if !s.d.TextAsBytes {
		return v
	}
	if v == "" {
		return []byte{} // nil would be NULL
	}
	return []byte(v)
}

// nullText returns v for a nullable string column: NULL when empty.
func (s *Store) nullText(v string) any {
	if v == "" {
		return nil
	}
	return s.text(v)
}

// failed returns err for a caller: EStoreUnavailable when it means the
// database cannot serve the store now, ENotFound naming sessionID when it
// is the foreign key violation of a row written for a missing session
// (sessionID "": never), else err.
func (s *Store) failed(err error, sessionID string) error {
	if err == nil {
		return nil
	}
	var ae *albedo.Error
	if errors.As(err, &ae) {
		return err
	}
	if sessionID != "" && s.d.ForeignKey(err) {
		return sessionNotFound(sessionID)
	}
	return s.d.Unavailable(err)
}

// RunInTx runs fn in a transaction on db, committing when fn succeeds and
// ctx is still live, else rolling back. The transaction is begun without
// ctx's cancellation, so that it ends in the calling goroutine rather than
// in one database/sql starts to roll it back when ctx is cancelled (a
// SQLite store closed meanwhile would otherwise close that connection
// later, and its final checkpoint could find the file locked by a store
// opened right after); fn's statements still run on ctx, so cancelling it
// interrupts them.
func RunInTx(ctx context.Context, db *bun.DB, fn func(ctx context.Context, tx *sql.Tx) error) error {
	tx, err := db.DB.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // after the commit, it does nothing
	if err := fn(ctx, tx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return tx.Commit()
}

// querier runs statements: a *sql.DB or a *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// rowScanner is a *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

// scanAll reads every row of query with scan.
func scanAll[T any](ctx context.Context, q querier, scan func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// params returns n parameter markers, separated by commas, numbered from
// first.
func params(first, n int) string {
	b := make([]byte, 0, n*5)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = fmt.Appendf(b, "$%d", first+i)
	}
	return string(b)
}

// sessionNotFound is the error for a missing session.
func sessionNotFound(id string) error {
	return albedo.Errorf(albedo.ENotFound, "session %s not found", id)
}

// NewerSchemaError reports a database whose schema is newer than this
// binary knows. Open returns it without having modified the database.
type NewerSchemaError struct {
	// Database names the database (a file's name; a server's database
	// without the URL's password).
	Database string
	// Version is the database's schema version; Known is the newest this
	// binary knows.
	Version, Known int
}

// Error says which database was refused and why.
func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("%s was written by a newer albedo (schema %d, this binary knows %d); refusing to modify it",
		e.Database, e.Version, e.Known)
}

// Migrate runs, in tx, the steps that take a schema at version from to
// len(steps): steps[i] takes it from version i to i+1. A newer schema is a
// *NewerSchemaError naming database.
func Migrate(ctx context.Context, tx *sql.Tx, database string, from int, steps [][]string) error {
	if from > len(steps) {
		return &NewerSchemaError{Database: database, Version: from, Known: len(steps)}
	}
	for v := from; v < len(steps); v++ {
		for _, stmt := range steps[v] {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
			}
		}
	}
	return nil
}
