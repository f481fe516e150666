package gitshadow

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestDiffListsEachFileWithItsStatusLinesAndPatch(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	files(t, ws, map[string]string{"gone.txt": "1\n2\n3\n", "edit.txt": "a\nb\nc\n", "run.sh": "echo\n", "bin.dat": "\x00\x01"})
	from, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	sh(t, ws, "rm gone.txt; printf 'a\\nB\\nc\\nd\\n' > edit.txt; chmod +x run.sh; printf 'n\\n' > new.txt; printf '\\000\\002' > bin.dat")
	to, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Diff(ctx, ws, from, to, albedo.DefaultDiffBounds())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		path, kind     string
		added, deleted int
		binary         bool
		patchHas       string
	}{
		{"bin.dat", "modified", 0, 0, true, "Binary files"},
		{"edit.txt", "modified", 2, 1, false, "-b\n+B\n c\n+d\n"},
		{"gone.txt", "deleted", 0, 3, false, "deleted file mode 100644"},
		{"new.txt", "created", 1, 0, false, "+n\n"},
		{"run.sh", "modified", 0, 0, false, "new mode 100755"},
	}
	if len(got) != len(want) {
		t.Fatalf("diff lists %d files; want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Path != w.path || g.Kind != w.kind || g.Added != w.added || g.Deleted != w.deleted || g.Binary != w.binary || g.PatchCut {
			t.Errorf("file %d is %s %s +%d -%d binary %v cut %v; want %s %s +%d -%d binary %v", i, g.Path, g.Kind, g.Added, g.Deleted, g.Binary, g.PatchCut, w.path, w.kind, w.added, w.deleted, w.binary)
		}
		if !strings.HasPrefix(g.Patch, "diff --git a/"+w.path+" b/"+w.path+"\n") || !strings.Contains(g.Patch, w.patchHas) {
			t.Errorf("patch of %s is %q; want a git patch holding %q", w.path, g.Patch, w.patchHas)
		}
	}
}

func TestDiffCutsPatchesToItsBounds(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	from, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a line of forty bytes, give or take.\n", 100)
	files(t, ws, map[string]string{"a.txt": long, "b.txt": "short\n", "c.txt": long, "d.txt": long})
	to, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		bounds albedo.DiffBounds
		// cut says which files' patches are cut ("c": cut with a marker,
		// "-": left out, " ": whole).
		cut string
	}{
		{"nothing past the bounds", albedo.DiffBounds{FileBytes: 1 << 20, TotalBytes: 1 << 20}, "    "},
		{"a file's bound cuts the long files", albedo.DiffBounds{FileBytes: 1000, TotalBytes: 1 << 20}, "c cc"},
		{"the whole's bound cuts the file it falls in and leaves out the later", albedo.DiffBounds{FileBytes: 1 << 20, TotalBytes: 5000}, "  c-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Diff(ctx, ws, from, to, tc.bounds)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 4 {
				t.Fatalf("diff lists %d files; want 4", len(got))
			}
			total := 0
			for i, f := range got {
				if f.Added == 0 {
					t.Errorf("%s counts no added line", f.Path)
				}
				total += len(f.Patch)
				marker := strings.Contains(f.Patch, albedo.PatchCutMarker)
				switch tc.cut[i] {
				case ' ':
					if f.PatchCut || marker || !strings.HasSuffix(f.Patch, "+short\n") && !strings.HasSuffix(f.Patch, "take.\n") {
						t.Errorf("%s: cut %v, patch ends %q; want the whole patch", f.Path, f.PatchCut, tail(f.Patch))
					}
				case 'c':
					if !f.PatchCut || !marker || !strings.HasSuffix(f.Patch, "\n") || len(f.Patch) > tc.bounds.FileBytes+100 {
						t.Errorf("%s: cut %v, %d bytes ending %q; want a patch cut with a marker", f.Path, f.PatchCut, len(f.Patch), tail(f.Patch))
					}
				case '-':
					if !f.PatchCut || f.Patch != "" {
						t.Errorf("%s: cut %v, patch %q; want none", f.Path, f.PatchCut, tail(f.Patch))
					}
				}
			}
			if total > tc.bounds.TotalBytes+4*100 {
				t.Errorf("the patches hold %d bytes, over the bound of %d", total, tc.bounds.TotalBytes)
			}
		})
	}
}

func TestDiffOfAnUnknownSnapshotSaysItWasPruned(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	snap, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	unknown := strings.Repeat("1", 40)
	if _, err := s.Diff(ctx, ws, unknown, snap, albedo.DefaultDiffBounds()); !errors.Is(err, albedo.ErrSnapshotPruned) {
		t.Errorf("diff from an unknown snapshot: %v; want ErrSnapshotPruned", err)
	}
	if _, err := s.Changes(ctx, ws, snap, unknown); !errors.Is(err, albedo.ErrSnapshotPruned) {
		t.Errorf("changes to an unknown snapshot: %v; want ErrSnapshotPruned", err)
	}
	if err := s.Restore(ctx, ws, unknown, []string{"a"}); !errors.Is(err, albedo.ErrSnapshotPruned) {
		t.Errorf("restore of an unknown snapshot: %v; want ErrSnapshotPruned", err)
	}
}

// tail is the end of a patch, for messages.
func tail(s string) string {
	return s[max(0, len(s)-60):]
}
