package gitshadow

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// noGit makes every later git command of s fail, so that a snapshot
// that still succeeds is one answered from the workspace's stamp.
func noGit(s *Shadows) { s.git = "/nonexistent/git" }

// stampedShadows returns shadows whose clock is an hour ahead, so that no
// file of the test counts as changed too recently for a stamp, and a
// workspace with a first snapshot taken.
func stampedShadows(t *testing.T) (*Shadows, string, string) {
	t.Helper()
	s := newShadows(t, Limits{})
	s.now = func() time.Time { return time.Now().Add(time.Hour) }
	ws := t.TempDir()
	files(t, ws, map[string]string{"a.txt": "a", "src/b.go": "package b\n", "run.sh!": "#!/bin/sh\n"})
	sh(t, ws, "git init -q")
	tree, err := s.Snapshot(context.Background(), ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, ws, tree
}

func TestAnUnchangedWorkspaceIsAnsweredWithoutGit(t *testing.T) {
	s, ws, tree := stampedShadows(t)
	noGit(s)
	for range 3 {
		got, err := s.Snapshot(context.Background(), ws, nil)
		if err != nil || got != tree {
			t.Fatalf("snapshot of an unchanged workspace = %q, %v; want %q without git", got, err, tree)
		}
	}
}

func TestAnyChangeToTheWorkspaceRunsGit(t *testing.T) {
	cases := []struct {
		name    string
		change  func(t *testing.T, ws string)
		written []string
	}{
		{"a file written longer", func(t *testing.T, ws string) { files(t, ws, map[string]string{"a.txt": "aa"}) }, nil},
		{"a file created in a new folder", func(t *testing.T, ws string) { files(t, ws, map[string]string{"new/deep/c.txt": "c"}) }, nil},
		{"an empty folder made", func(t *testing.T, ws string) { mkdir(t, filepath.Join(ws, "empty")) }, nil},
		{"a file removed", func(t *testing.T, ws string) { remove(t, filepath.Join(ws, "src/b.go")) }, nil},
		{"a file renamed", func(t *testing.T, ws string) { rename(t, filepath.Join(ws, "a.txt"), filepath.Join(ws, "z.txt")) }, nil},
		{"a mode changed", func(t *testing.T, ws string) { chmod(t, filepath.Join(ws, "run.sh"), 0o644) }, nil},
		{"an ignored file created", func(t *testing.T, ws string) { files(t, ws, map[string]string{"node_modules/x.js": "x"}) }, nil},
		{"the repository's info/exclude changed", func(t *testing.T, ws string) {
			files(t, ws, map[string]string{".git/info/exclude": "*.txt\n"})
		}, nil},
		{"a file the cell's trace names", func(t *testing.T, ws string) {}, []string{"a.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ws, _ := stampedShadows(t)
			c.change(t, ws)
			noGit(s)
			if got, err := s.Snapshot(context.Background(), ws, c.written); err == nil {
				t.Fatalf("snapshot after %s = %q without git; want git to record it", c.name, got)
			}
		})
	}
}

func TestAFileChangedJustBeforeASnapshotIsLookedAtAgain(t *testing.T) {
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	files(t, ws, map[string]string{"a.txt": "1"})
	if _, err := s.Snapshot(context.Background(), ws, nil); err != nil {
		t.Fatal(err)
	}
	// Written again at once, its times may not move: only git can tell.
	files(t, ws, map[string]string{"a.txt": "2"})
	noGit(s)
	if got, err := s.Snapshot(context.Background(), ws, nil); err == nil {
		t.Fatalf("snapshot right after a write = %q without git; want git to look", got)
	}
}

func TestARestoreForgetsTheStamp(t *testing.T) {
	s, ws, tree := stampedShadows(t)
	if err := s.Restore(context.Background(), ws, tree, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	noGit(s)
	if got, err := s.Snapshot(context.Background(), ws, nil); err == nil {
		t.Fatalf("snapshot after a restore = %q without git; want git to record it", got)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
