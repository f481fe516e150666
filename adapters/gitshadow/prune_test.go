package gitshadow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

func TestPruneKeepsTheNewestSnapshotsWithinItsBoundsAndDropsTheRest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits Limits
		repo   bool
		// kept says which of the five snapshots (a day apart) outlive
		// the pruning.
		kept string
	}{
		{"the last two snapshots", Limits{KeepSnapshots: 2}, false, "...kk"},
		{"the last two snapshots of a repository", Limits{KeepSnapshots: 2}, true, "...kk"},
		{"what stood in the last two days", Limits{KeepDays: 2}, false, "..kkk"},
		{"nothing past the bounds", Limits{}, true, "kkkkk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := newShadows(t, tc.limits)
			clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			s.now = func() time.Time { return clock }
			ws := t.TempDir()
			if tc.repo {
				files(t, ws, map[string]string{"tracked.txt": "t\n"})
				sh(t, ws, "git init -q && git add . && git -c user.name=u -c user.email=u@x commit -qm t")
			}
			var snaps []string
			for i := range 5 {
				files(t, ws, map[string]string{"f.txt": fmt.Sprintf("version %d\n", i), fmt.Sprintf("only%d.txt", i): "x\n"})
				snap, err := s.Snapshot(ctx, ws, nil)
				if err != nil {
					t.Fatal(err)
				}
				snaps = append(snaps, snap)
				clock = clock.Add(24 * time.Hour)
			}
			clock = clock.Add(-12 * time.Hour)
			if _, err := s.Prune(ctx); err != nil {
				t.Fatal(err)
			}
			last := snaps[len(snaps)-1]
			for i, snap := range snaps {
				err := s.Restore(ctx, ws, snap, []string{"f.txt"})
				if tc.kept[i] == 'k' {
					if err != nil {
						t.Fatalf("restore of kept snapshot %d: %v", i, err)
					}
					if got, _ := os.ReadFile(filepath.Join(ws, "f.txt")); string(got) != fmt.Sprintf("version %d\n", i) {
						t.Fatalf("restore of kept snapshot %d wrote %q", i, got)
					}
					if _, err := s.Diff(ctx, ws, snap, last, albedo.DefaultDiffBounds()); err != nil {
						t.Fatalf("diff of kept snapshot %d: %v", i, err)
					}
					continue
				}
				if !errors.Is(err, albedo.ErrSnapshotPruned) {
					t.Fatalf("restore of pruned snapshot %d: %v; want ErrSnapshotPruned", i, err)
				}
				if _, err := s.Changes(ctx, ws, snap, last); !errors.Is(err, albedo.ErrSnapshotPruned) {
					t.Fatalf("changes from pruned snapshot %d: %v; want ErrSnapshotPruned", i, err)
				}
				shadow := &shadow{git: s.git, dir: filepath.Join(s.dir, Key(realPath(t, ws))), workspace: ws, state: &state{}}
				if _, err := shadow.run(ctx, nil, "cat-file", "-e", snap); err == nil {
					t.Fatalf("pruned snapshot %d is still in the shadow's objects", i)
				}
			}
			next, err := s.Snapshot(ctx, ws, nil)
			if err != nil || next != last {
				t.Fatalf("a snapshot after the pruning: %s, %v; want %s", next, err, last)
			}
		})
	}
}

// realPath is the real path of a folder.
func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
