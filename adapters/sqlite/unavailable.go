package sqlite

import (
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// unavailable turns a failure of SQLite that says the store cannot take a
// write now (a full disk, a lock another program holds past the busy
// timeout, a read-only file or folder) into an EStoreUnavailable error
// naming the cause. Other errors are returned as they are.
func unavailable(err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	var cause string
	switch code := se.Code(); code & 0xff {
	case sqlite3.SQLITE_FULL:
		cause = "the disk holding ALBEDO_HOME is full"
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		cause = "albedo.sqlite is locked by another program"
	case sqlite3.SQLITE_READONLY:
		cause = "albedo.sqlite cannot be written: it or ALBEDO_HOME is read-only"
	case sqlite3.SQLITE_CANTOPEN:
		cause = "albedo.sqlite cannot be opened: ALBEDO_HOME may be read-only or gone"
	case sqlite3.SQLITE_IOERR:
		cause = "albedo.sqlite cannot be written: the disk holding ALBEDO_HOME failed"
	default:
		return err
	}
	return &albedo.Error{Code: albedo.EStoreUnavailable, Message: fmt.Sprintf("%s; nothing of the change was stored (%v)", cause, se)}
}

// foreignKeyViolation reports whether err is the violation of a foreign
// key, as a row written for a session that does not exist is.
func foreignKeyViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}
