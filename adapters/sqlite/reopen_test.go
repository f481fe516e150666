package sqlite

import (
	"context"
	"testing"
)

// TestOpenWaitsForAnotherConnectionsLock: the last connection to close a
// database takes an exclusive lock to fold the write-ahead log into the
// file, so a store opened right after another one closed can find the
// file locked for a moment. Open waits for the lock, as every connection
// of the store does, instead of failing with SQLITE_BUSY.
func TestOpenWaitsForAnotherConnectionsLock(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	first, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	holder := rawDB(t, path)
	holder.SetMaxOpenConns(1)
	exec(t, holder, "PRAGMA locking_mode=EXCLUSIVE", "BEGIN EXCLUSIVE", "SELECT count(*) FROM sessions")
	opened := make(chan error, 1)
	go func() {
		s, err := Open(ctx, path)
		if err == nil {
			err = s.Close()
		}
		opened <- err
	}()
	exec(t, holder, "COMMIT")
	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("Open while another connection held the file's lock: %v", err)
	}
}
