package sqlite

import (
	"context"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// smallDisk mounts a tmpfs of size bytes for the test and returns its
// folder. Mounting needs root (and CAP_SYS_ADMIN); elsewhere the test is
// skipped, saying so.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := osexec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := osexec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// wantUnavailable fails the test unless err is EStoreUnavailable naming
// cause.
func wantUnavailable(t *testing.T, err error, cause string) {
	t.Helper()
	if albedo.ErrorCode(err) != albedo.EStoreUnavailable || !strings.Contains(albedo.ErrorMessage(err), cause) {
		t.Fatalf("err = %v (code %q), want %s naming %q", err, albedo.ErrorCode(err), albedo.EStoreUnavailable, cause)
	}
}

// wantTexts fails the test unless the session's transcript holds texts.
func wantTexts(t *testing.T, s *Store, id string, texts ...string) {
	t.Helper()
	items, err := s.Items(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.Text)
	}
	if strings.Join(got, "|") != strings.Join(texts, "|") {
		t.Fatalf("transcript = %q, want %q", got, texts)
	}
}

// TestFullDiskIsUnavailable fills the disk under the store: a commit fails
// with EStoreUnavailable naming the full disk, what was committed stays,
// and commits work again once there is room.
func TestFullDiskIsUnavailable(t *testing.T) {
	dir := smallDisk(t, "2m")
	s := openStore(t, filepath.Join(dir, "albedo.sqlite"))
	sess := newSession("s1")
	mustCommit(t, s, albedo.Commit{Session: &sess, Items: []albedo.Item{textItem("kept")}})

	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	_, err = s.Commit(context.Background(), albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{textItem(strings.Repeat("x", 256<<10))}})
	wantUnavailable(t, err, "the disk holding ALBEDO_HOME is full")

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{textItem("after")}})
	wantTexts(t, s, sess.ID, "kept", "after")
}

// TestReadOnlyStoreIsUnavailable has SQLite find its file read-only under
// a running store, as after the kernel remounts a failing disk read-only.
// Root writes through file modes and a busy mount cannot be remounted, so
// the test has SQLite itself refuse writes (query_only), which fails them
// with the same SQLITE_READONLY.
func TestReadOnlyStoreIsUnavailable(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, testPath(t))
	sess := newSession("s1")
	mustCommit(t, s, albedo.Commit{Session: &sess, Items: []albedo.Item{textItem("kept")}})
	if _, err := s.write.DB.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Commit(ctx, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{textItem("lost")}})
	wantUnavailable(t, err, "read-only")
	if _, err := s.write.DB.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{textItem("after")}})
	wantTexts(t, s, sess.ID, "kept", "after")
}

// TestHeldWriteLockIsUnavailable has another program hold the database's
// write lock past the busy timeout.
func TestHeldWriteLockIsUnavailable(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := openStore(t, path)
	sess := newSession("s1")
	mustCommit(t, s, albedo.Commit{Session: &sess, Items: []albedo.Item{textItem("kept")}})

	other := rawDB(t, path)
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Commit(ctx, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{textItem("lost")}})
	wantUnavailable(t, err, "albedo.sqlite is locked by another program")
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	mustCommit(t, s, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{textItem("after")}})
	wantTexts(t, s, sess.ID, "kept", "after")
}
