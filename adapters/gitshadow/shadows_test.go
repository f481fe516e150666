package gitshadow

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestRestoreUndoesWhatChangedBetweenSnapshots(t *testing.T) {
	for _, tc := range []struct {
		name    string
		before  map[string]string
		change  string
		changes []albedo.FileChange
	}{
		{
			name:   "created, deleted, edited and made executable by a shell",
			before: map[string]string{"c.txt": "c\n", "d.txt": "1\n1\n", "e.sh": "echo e\n", "keep.txt": "k"},
			change: "echo a > a.txt; echo x > b.txt; rm c.txt; sed -i s/1/2/ d.txt; chmod +x e.sh",
			changes: []albedo.FileChange{{Path: "a.txt", Kind: "created"}, {Path: "b.txt", Kind: "created"},
				{Path: "c.txt", Kind: "deleted"}, {Path: "d.txt", Kind: "modified"}, {Path: "e.sh", Kind: "modified"}},
		},
		{
			name:    "a new folder of files",
			before:  map[string]string{"src/main.go": "package main\n"},
			change:  "mkdir -p gen/sub && echo 1 > gen/sub/one && echo 2 > gen/two",
			changes: []albedo.FileChange{{Path: "gen/sub/one", Kind: "created"}, {Path: "gen/two", Kind: "created"}},
		},
		{
			name:    "an executable made plain and a symlink retargeted",
			before:  map[string]string{"run.sh!": "#!/bin/sh\n", "t1": "1", "t2": "2"},
			change:  "ln -s t1 link && chmod -x run.sh",
			changes: []albedo.FileChange{{Path: "link", Kind: "created"}, {Path: "run.sh", Kind: "modified"}},
		},
		{
			name:    "odd names",
			before:  map[string]string{"sp ace.txt": "1", "ünï.txt": "2", "new\nline": "3", "*": "star"},
			change:  "echo 9 > 'sp ace.txt'; rm 'ünï.txt'; echo 8 > 'new\nline'; echo 7 > '[a]'",
			changes: []albedo.FileChange{{Path: "[a]", Kind: "created"}, {Path: "new\nline", Kind: "modified"}, {Path: "sp ace.txt", Kind: "modified"}, {Path: "ünï.txt", Kind: "deleted"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := newShadows(t, Limits{})
			ws := t.TempDir()
			files(t, ws, tc.before)
			if strings.Contains(tc.name, "symlink") {
				sh(t, ws, "ln -s t2 link2")
			}
			was := fileState(t, ws)
			from, err := s.Snapshot(ctx, ws, nil)
			if err != nil {
				t.Fatal(err)
			}
			sh(t, ws, tc.change)
			after := fileState(t, ws)
			to, err := s.Snapshot(ctx, ws, nil)
			if err != nil {
				t.Fatal(err)
			}
			changes, err := s.Changes(ctx, ws, from, to)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(changes, tc.changes) {
				t.Fatalf("changes %q; want %q", changes, tc.changes)
			}
			paths := make([]string, len(changes))
			for i, c := range changes {
				paths[i] = c.Path
			}
			if err := s.Restore(ctx, ws, from, paths); err != nil {
				t.Fatal(err)
			}
			if d := diffStates(was, fileState(t, ws)); d != nil {
				t.Fatalf("after the restore the files differ from the first snapshot: %q", d)
			}
			if err := s.Restore(ctx, ws, to, paths); err != nil {
				t.Fatal(err)
			}
			if d := diffStates(after, fileState(t, ws)); d != nil {
				t.Fatalf("after the undo the files differ from the second snapshot: %q", d)
			}
		})
	}
}

func TestARestoreTouchesOnlyThePathsNamed(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	files(t, ws, map[string]string{"cell.txt": "1", "user.txt": "1"})
	from, _ := s.Snapshot(ctx, ws, nil)
	files(t, ws, map[string]string{"cell.txt": "2", "user.txt": "2"})
	if err := s.Restore(ctx, ws, from, []string{"cell.txt"}); err != nil {
		t.Fatal(err)
	}
	got := fileState(t, ws)
	files(t, ws, map[string]string{"cell.txt": "1", "user.txt": "2"})
	if d := diffStates(fileState(t, ws), got); d != nil {
		t.Fatalf("%q", d)
	}
}

func TestSnapshotsLeaveOutWhatTheyShould(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{MaxFileBytes: 1000})
	ws := t.TempDir()
	files(t, ws, map[string]string{
		".gitignore":            "*.log\nbuild/\n",
		"src/a.go":              "package a\n",
		"debug.log":             "log",
		"build/out.bin":         "bin",
		"node_modules/x/i.js":   "js",
		".venv/lib/site.py":     "py",
		"big.dat":               strings.Repeat("x", 1001),
		"build/written-by-cell": "w",
	})
	sh(t, ws, "git init -q && echo '/excluded-by-info' >> .git/info/exclude && echo e > excluded-by-info")
	tree, err := s.Snapshot(ctx, ws, []string{filepath.Join(ws, "build/written-by-cell"), filepath.Join(ws, "../outside")})
	if err != nil {
		t.Fatal(err)
	}
	listed := s.list(t, ws, tree)
	want := []string{".gitignore", "build/written-by-cell", "src/a.go"}
	if !slices.Equal(listed, want) {
		t.Fatalf("snapshot holds %q; want %q", listed, want)
	}
	// Changes to left-out files are no changes, and a rewind of the
	// rest leaves them be.
	files(t, ws, map[string]string{"debug.log": "log2", "node_modules/x/i.js": "js2", "big.dat": strings.Repeat("y", 2000), "src/a.go": "package b\n"})
	ignored := fileState(t, ws)
	next, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	changes, _ := s.Changes(ctx, ws, tree, next)
	if want := []albedo.FileChange{{Path: "src/a.go", Kind: "modified"}}; !slices.Equal(changes, want) {
		t.Fatalf("changes %q; want %q", changes, want)
	}
	if err := s.Restore(ctx, ws, tree, []string{"src/a.go"}); err != nil {
		t.Fatal(err)
	}
	ignored["src/a.go"] = fileState(t, ws)["src/a.go"]
	if d := diffStates(ignored, fileState(t, ws)); d != nil {
		t.Fatalf("%q", d)
	}
}

// list returns the paths a snapshot holds.
func (s *Shadows) list(t *testing.T, ws, tree string) []string {
	t.Helper()
	sh, unlock, err := s.open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	out, err := sh.run(context.Background(), nil, "ls-tree", "-r", "-z", "--name-only", tree)
	if err != nil {
		t.Fatal(err)
	}
	return splitNul(out)
}

func TestTheUsersRepositoryIsNeverChanged(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	files(t, ws, map[string]string{"a.txt": "a", "b.txt": "b", "sub/c.txt": "c"})
	sh(t, ws, `git init -q && git -c user.name=u -c user.email=u@x add -A && git -c user.name=u -c user.email=u@x commit -qm one &&
		echo staged > b.txt && git add b.txt && echo unstaged > a.txt`)
	repo := func() map[string]string {
		out := map[string]string{"count-objects": sh(t, ws, "git count-objects -v"), "status": sh(t, ws, "git status --porcelain")}
		for k, v := range fileState(t, filepath.Join(ws, ".git")) {
			out[".git/"+k] = v
		}
		return out
	}
	before := repo()
	from, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	sh(t, ws, "echo x > new.txt && rm sub/c.txt && echo y > a.txt")
	to, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(ctx, ws, from, []string{"new.txt", "sub/c.txt", "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(ctx, ws, to, []string{"new.txt", "sub/c.txt", "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(ctx, ws, from, []string{"new.txt", "sub/c.txt", "a.txt"}); err != nil {
		t.Fatal(err)
	}
	after := repo()
	if d := diffStates(before, after); d != nil {
		t.Fatalf("the user's repository changed: %q", d)
	}
	gits := sh(t, ws, "find . -name .git")
	if gits != "./.git\n" {
		t.Fatalf("git folders in the workspace: %q", gits)
	}
}

func TestTheUsersGitConfigurationIsIgnored(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	marker := filepath.Join(home, "ran")
	hook := filepath.Join(home, "hook.sh")
	files(t, home, map[string]string{"hook.sh!": "#!/bin/sh\ntouch " + marker + "\n"})
	files(t, home, map[string]string{".gitconfig": "[core]\n\tfsmonitor = " + hook + "\n\thooksPath = " + home +
		"\n\tautocrlf = true\n[filter \"f\"]\n\tclean = " + hook + "\n\tsmudge = " + hook + "\n"})
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_DIR", filepath.Join(home, "nowhere"))
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	files(t, ws, map[string]string{".gitattributes": "*.txt filter=f\n", "a.txt": "a\r\nb\r\n"})
	from, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	was := fileState(t, ws)
	os.Remove(filepath.Join(ws, "a.txt"))
	if err := s.Restore(ctx, ws, from, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if d := diffStates(was, fileState(t, ws)); d != nil {
		t.Fatalf("restored differently: %q", d)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a program of the user's git configuration ran")
	}
}

func TestAWorkspaceOverALimitHasSnapshotsOff(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{MaxFiles: 3})
	ws := t.TempDir()
	files(t, ws, map[string]string{"1": "", "2": "", "3": ""})
	if _, err := s.Snapshot(ctx, ws, nil); err != nil {
		t.Fatal(err)
	}
	files(t, ws, map[string]string{"4": ""})
	for range 2 {
		_, err := s.Snapshot(ctx, ws, nil)
		if albedo.ErrorCode(err) != albedo.ETooLarge || !strings.Contains(err.Error(), "over the limit of 3") {
			t.Fatalf("got %v; want snapshots off for too many files", err)
		}
	}
}

func TestARepositoryOverTheFileLimitHasSnapshotsOff(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{MaxFiles: 3})
	ws := t.TempDir()
	files(t, ws, map[string]string{"1": "", "2": "", "3": "", "4": ""})
	sh(t, ws, "git init -q && git add -A && git -c user.name=u -c user.email=u@x commit -qm one")
	if _, err := s.Snapshot(ctx, ws, nil); albedo.ErrorCode(err) != albedo.ETooLarge {
		t.Fatalf("got %v; want snapshots off for a repository of 4 files", err)
	}
}

func TestRecoverFinishesARestoreACrashCut(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	files(t, ws, map[string]string{"a": "1", "b": "1"})
	was := fileState(t, ws)
	from, _ := s.Snapshot(ctx, ws, nil)
	files(t, ws, map[string]string{"a": "2", "b": "2", "c": "2"})
	// A crash after the journal was written and a part of the files
	// restored.
	sh, unlock, err := s.open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(journal{Snapshot: from, Paths: []string{"a", "b", "c"}})
	os.WriteFile(filepath.Join(sh.dir, journalName), b, 0o600)
	unlock()
	files(t, ws, map[string]string{"a": "1"})
	if err := s.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if d := diffStates(was, fileState(t, ws)); d != nil {
		t.Fatalf("after recovery: %q", d)
	}
	if _, err := os.Stat(filepath.Join(sh.dir, journalName)); !os.IsNotExist(err) {
		t.Fatalf("journal left: %v", err)
	}
}

func TestARestoreRefusesPathsOutsideTheWorkspace(t *testing.T) {
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	for _, p := range []string{"../x", "/etc/passwd", ".git/config", "a/../../b", ""} {
		if err := s.Restore(context.Background(), ws, "4b825dc642cb6eb9a060e54bf8d69288fbee4904", []string{p}); albedo.ErrorCode(err) != albedo.EInvalid {
			t.Errorf("%q: got %v; want invalid", p, err)
		}
	}
}

func TestAWorkspaceHoldingTheShadowsLeavesThemOut(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	s, err := New(filepath.Join(ws, "home", "checkpoints"), Limits{})
	if err != nil {
		t.Skip(err)
	}
	files(t, ws, map[string]string{"a.txt": "a"})
	tree, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if listed := s.list(t, ws, tree); !slices.Equal(listed, []string{"a.txt"}) {
		t.Fatalf("snapshot holds %q", listed)
	}
}

func TestARewindSurvivesTheUsersGC(t *testing.T) {
	ctx := context.Background()
	s := newShadows(t, Limits{})
	ws := t.TempDir()
	files(t, ws, map[string]string{"a.txt": "v1\n", "b.txt": "b\n"})
	commit := "git -c user.name=u -c user.email=u@x commit -q"
	sh(t, ws, "git init -q && git add -A && "+commit+" -m one")
	from, err := s.Snapshot(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	shadow, unlock, _ := s.open(ctx, ws)
	borrowed := shadow.borrows()
	unlock()
	if !borrowed {
		t.Fatal("the first snapshot of a repository did not start from its index")
	}
	files(t, ws, map[string]string{"a.txt": "v2\n"})
	if _, err := s.Snapshot(ctx, ws, nil); err != nil {
		t.Fatal(err)
	}
	// The user rewrites history so that v1 is nowhere, and collects it.
	v1 := strings.TrimSpace(sh(t, ws, "git rev-parse HEAD:a.txt"))
	sh(t, ws, "echo v3 > a.txt && git add a.txt && "+commit+" --amend -m one && git reflog expire --expire=now --all && git gc -q --prune=now")
	if out, err := exec.Command("git", "-C", ws, "cat-file", "-e", v1).CombinedOutput(); err == nil {
		t.Fatalf("the user's gc kept %s: %s", v1, out)
	}
	if err := s.Restore(ctx, ws, from, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "v1\n" {
		t.Fatalf("a.txt is %q after the restore; want v1", b)
	}
}
