// Package sqlstore keeps albedo's sessions, transcripts, queued messages,
// vents, compaction states and request ledger in an SQL database through
// bun; *Store implements albedo.Store. The packages sqlite and postgres
// open their database, migrate its schema and hand the store a Dialect
// that says what differs between them: how a string is bound, whether the
// rows of a multi-row insert name their types, how a row is locked, which
// failures mean the database is unavailable or a session missing.
//
// Every value is bound as a parameter ($1, $2, ...; SQLite reads them
// too), never spliced into the SQL text, which could not carry every
// string. Times are Unix milliseconds. Rows keyed by a session go with it
// through their foreign keys (ON DELETE CASCADE), which also turn a row
// written for a missing session into ENotFound.
package sqlstore
