package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// openStore opens the store at url and closes it when the test ends.
func openStore(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatalf("Open(%s): %v", Redact(url), err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// newStore opens a store on a database of its own.
func newStore(t testing.TB) *Store {
	t.Helper()
	return openStore(t, pgtest.NewDatabase(t))
}

// newSession returns a session with every field set.
func newSession(id string) albedo.Session {
	return albedo.Session{
		ID: id, Workspace: "/work/" + id, Provider: "fixture", Model: "fixture-model",
		Protocol: albedo.ProtocolResponses, Effort: "low", Title: albedo.DefaultTitle,
		Stage: albedo.StageIdle, Revision: 1,
		CreatedAt: time.UnixMilli(1_700_000_000_000), UpdatedAt: time.UnixMilli(1_700_000_000_000),
	}
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
