package spool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSpoolKeepsWhatACellPrinted(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		limit  int
		pieces []string
		want   string
	}{
		{"nothing printed", 16, nil, ""},
		{"fits", 16, []string{"ab", "cd\n"}, "abcd\n"},
		{"exactly the limit", 8, []string{"0123", "4567"}, "01234567"},
		{"past the limit keeps head and last tails", 8, []string{"0123456789", "abcdef"}, "0123\n[... 8 bytes cut ...]\ncdef"},
		{"one byte past the limit", 8, []string{"012345678"}, "0123\n[... 2 bytes cut ...]\n678"},
		{"long tails rotate", 8, []string{strings.Repeat("x", 100), "END!"}, "xxxx\n[... 96 bytes cut ...]\nEND!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t.TempDir(), tt.limit)
			for _, p := range tt.pieces {
				if err := s.Append(ctx, "sess", 7, p); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Read(ctx, "sess", 7)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Read = %q, want %q", got, tt.want)
			}
		})
	}
}

// A restarted albedo reads what an earlier process spooled.
func TestSpoolSurvivesItsProcess(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := New(dir, 0).Append(ctx, "sess", 3, "printed\n"); err != nil {
		t.Fatal(err)
	}
	got, err := New(dir, 0).Read(ctx, "sess", 3)
	if err != nil || got != "printed\n" {
		t.Fatalf("Read = %q, %v", got, err)
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

func TestSpoolRemove(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(dir, 0)
	if err := s.Append(ctx, "sess", 1, "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(ctx, "sess", 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Read(ctx, "sess", 1); got != "" {
		t.Errorf("Read after Remove = %q", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "sess")); len(entries) != 0 {
		t.Errorf("the session's spool folder still holds %v", entries)
	}
	// A spool an earlier process left is removed whole, tails included.
	if err := New(dir, 8).Append(ctx, "sess", 2, "0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	if err := New(dir, 8).Remove(ctx, "sess", 2); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "sess")); len(entries) != 0 {
		t.Errorf("after removing an earlier process's spool the folder holds %v", entries)
	}
	if err := s.Remove(ctx, "never", 9); err != nil {
		t.Errorf("removing a spool that never was: %v", err)
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

// Removing a session's spool removes its folder and every cell in it,
// those an earlier process left included; other sessions keep theirs, and
// the session can spool again.
func TestSpoolRemoveSession(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := New(dir, 8).Append(ctx, "gone", 1, "0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	s := New(dir, 8)
	for _, c := range []struct {
		session string
		call    int64
	}{{"gone", 2}, {"gone", 3}, {"kept", 1}} {
		if err := s.Append(ctx, c.session, c.call, "printed"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RemoveSession(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
		t.Errorf("the session's spool folder is still there (%v)", err)
	}
	if got, _ := s.Read(ctx, "kept", 1); got != "printed" {
		t.Errorf("another session's spool reads %q", got)
	}
	if err := s.Append(ctx, "gone", 2, "again"); err != nil {
		t.Fatalf("spooling again after the removal: %v", err)
	}
	if got, _ := s.Read(ctx, "gone", 2); got != "again" {
		t.Errorf("spooled again: %q, want %q", got, "again")
	}
	if err := s.RemoveSession(ctx, "never"); err != nil {
		t.Errorf("removing the spool of a session that spooled nothing: %v", err)
	}
	if err := s.RemoveSession(ctx, "../x"); err == nil {
		t.Error("a session id naming a path was accepted")
	}
}
