// Package postgres keeps albedo's store in a PostgreSQL database: Open
// returns the store of package sqlstore on it, which passes the same
// conformance suite as on SQLite.
//
// The store talks to the server through bun's PostgreSQL dialect over the
// pgx driver. Every string albedo hands the store is kept in a bytea
// column, byte for byte: PostgreSQL's text refuses NUL and, in a UTF-8
// database, invalid UTF-8, both of which a transcript may hold. Ordering by
// a bytea column compares bytes, as SQLite compares text, so listings come
// in the same order on both stores. Times are Unix milliseconds in bigint
// columns, as in SQLite.
//
// The schema is versioned in the table albedo_schema and migrated forward
// when the store opens, in one transaction under an advisory lock; a
// database written by a newer albedo is refused untouched. A server that
// cannot be reached, or that shuts down or runs out of room, makes the
// store's methods fail with albedo's store-unavailable error, and the pool
// reconnects when the server is back.
package postgres
