package spool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/spooltest"
)

// TestConformance runs the spool suite against spools in a folder.
func TestConformance(t *testing.T) {
	spooltest.Run(t, func(t *testing.T) spooltest.Open {
		dir := t.TempDir()
		return func(limit int) (albedo.OutputSpool, func()) { return New(dir, limit), func() {} }
	})
}

// The files keep the head and the last two tails of a quarter of the
// limit each.
func TestSpoolKeepsHeadAndTails(t *testing.T) {
	ctx := context.Background()
	s := New(t.TempDir(), 8)
	if err := s.Append(ctx, "sess", 7, "012345678"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Read(ctx, "sess", 7); got != "0123\n[... 2 bytes cut ...]\n678" || err != nil {
		t.Errorf("Read = %q, %v", got, err)
	}
}

func TestSpoolBoundsItsFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(dir, 1024)
	for range 1000 {
		if err := s.Append(ctx, "sess", 1, strings.Repeat("y", 100)); err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return nil
	})
	if total > 1024 {
		t.Errorf("the spool holds %d bytes, more than its limit of 1024", total)
	}
}

func TestSpoolRefusesPathsInSessionIDs(t *testing.T) {
	s := New(t.TempDir(), 0)
	for _, id := range []string{"", "..", "a/b", ".hidden"} {
		if err := s.Append(context.Background(), id, 1, "x"); err == nil {
			t.Errorf("Append accepted session id %q", id)
		}
	}
}

// BenchmarkCellSpool measures what spooling adds to a cell that prints one
// line: its one append, then the removal once the result is recorded.
func BenchmarkCellSpool(b *testing.B) {
	ctx := context.Background()
	s := New(b.TempDir(), 0)
	b.ResetTimer()
	for i := range b.N {
		if err := s.Append(ctx, "sess", int64(i), "hello\n"); err != nil {
			b.Fatal(err)
		}
		if err := s.Remove(ctx, "sess", int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSilentCellSpool measures what spooling adds to a cell that
// prints nothing: the removal of a spool that was never made.
func BenchmarkSilentCellSpool(b *testing.B) {
	ctx := context.Background()
	s := New(b.TempDir(), 0)
	b.ResetTimer()
	for i := range b.N {
		if err := s.Remove(ctx, "sess", int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// Removing a session's spool removes its folder.
func TestSpoolRemoveSessionRemovesItsFolder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(dir, 8)
	if err := s.Append(ctx, "gone", 1, "printed"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveSession(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
		t.Errorf("the session's spool folder is still there (%v)", err)
	}
	if err := s.RemoveSession(ctx, "../x"); err == nil {
		t.Error("a session id naming a path was accepted")
	}
}

// Removing a cell removes its files, an earlier process's tails included.
func TestSpoolRemoveRemovesItsFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := New(dir, 8).Append(ctx, "sess", 2, "0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	if err := New(dir, 8).Remove(ctx, "sess", 2); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "sess")); len(entries) != 0 {
		t.Errorf("after removing an earlier process's spool the folder holds %v", entries)
	}
}
