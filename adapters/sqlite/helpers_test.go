package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// testPath returns the path of a database file in a fresh directory.
func testPath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "albedo.sqlite")
}

// openStore opens the store at path and closes it when the test ends.
func openStore(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// rawDB opens the database file as an outside tool would, without the
// store's pragmas, and closes it when the test ends.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// exec runs statements on db, failing the test on the first error.
func exec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, stmt := range stmts {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// newSession returns a session with every field set.
func newSession(id string) albedo.Session {
	return albedo.Session{
		ID:         id,
		Workspace:  "/work/" + id,
		Provider:   "fixture",
		Model:      "fixture-model",
		Protocol:   albedo.ProtocolResponses,
		Effort:     "low",
		Title:      albedo.DefaultTitle,
		Stage:      albedo.StageIdle,
		Revision:   1,
		Checkpoint: 0,
		CreatedAt:  time.UnixMilli(1_700_000_000_000),
		UpdatedAt:  time.UnixMilli(1_700_000_000_000),
	}
}

// createSessions stores sessions named prefix0, prefix1, ... and returns
// their IDs.
func createSessions(t testing.TB, s *Store, prefix string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		sess := newSession(fmt.Sprintf("%s%d", prefix, i))
		mustCommit(t, s, albedo.Commit{Session: &sess})
		ids[i] = sess.ID
	}
	return ids
}

// mustCommit commits change, failing the test on error.
func mustCommit(t testing.TB, s *Store, change albedo.Commit) albedo.Committed {
	t.Helper()
	done, err := s.Commit(context.Background(), change)
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return done
}

// wantCode fails the test unless err carries the application error code.
func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if got := albedo.ErrorCode(err); got != code {
		t.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

// textItem returns a user item with text.
func textItem(text string) albedo.Item {
	return albedo.Item{Kind: albedo.KindUser, Text: text, Timestamp: 1_700_000_000_123}
}

// join formats values separated by spaces.
func join[T any](values []T) string {
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, v)
	}
	return b.String()
}
