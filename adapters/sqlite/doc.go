// Package sqlite keeps albedo's store in one SQLite database file: Open
// returns the store of package sqlstore on it.
//
// The database runs in WAL mode. Writes go through a single connection, so
// write transactions queue in the process instead of contending for SQLite's
// write lock, while reads use a small pool of their own and never wait for a
// writer. The schema is versioned with PRAGMA user_version and migrated
// forward when the store opens; a file written by a newer albedo is refused
// untouched.
package sqlite
