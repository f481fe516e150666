package postgres

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/jackc/pgx/v5/pgconn"
)

// unavailable turns a failure that says the database cannot serve the
// store now (the server cannot be reached, shuts down, is out of room or
// read-only) into an EStoreUnavailable error naming the cause. Other errors
// are returned as they are.
func unavailable(err error) error {
	if err == nil {
		return nil
	}
	var ae *albedo.Error
	if errors.As(err, &ae) {
		return err
	}
	cause := unavailableCause(err)
	if cause == "" {
		return err
	}
	return &albedo.Error{Code: albedo.EStoreUnavailable, Message: fmt.Sprintf("%s; nothing was stored or read, try again once it is back (%v)", cause, err)}
}

// unavailableCause says why err means the database is unavailable, or ""
// when it means something else.
func unavailableCause(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case strings.HasPrefix(pg.Code, "08"), pg.Code == "57P01", pg.Code == "57P02", pg.Code == "57P03":
			return "the PostgreSQL server is shutting down or not accepting connections"
		case pg.Code == "53100":
			return "the disk of the PostgreSQL server is full"
		case strings.HasPrefix(pg.Code, "53"):
			return "the PostgreSQL server is out of resources"
		case pg.Code == "25006":
			return "the PostgreSQL database is read-only"
		}
		return ""
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connect), errors.As(err, &netErr),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "the PostgreSQL server cannot be reached"
	}
	if pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed") {
		return "the PostgreSQL server cannot be reached"
	}
	return ""
}

// foreignKeyViolation reports whether err is the violation of a foreign
// key, as a row written for a session that does not exist is.
func foreignKeyViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23503"
}
