package engine_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/adapters/gitshadow"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// rewindRig is a rig whose workspace is snapshotted by the git adapter
// and whose first turn runs two cells: the first writes a.txt, the second
// does what a shell would (creates b.txt, deletes c.txt, edits d.txt,
// makes e.sh executable). The files before the turn and after it are
// kept.
type rewindRig struct {
	*rig
	id            string
	before, after map[string]string
}

func newRewindRig(t *testing.T) *rewindRig {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	shadows, err := gitshadow.New(filepath.Join(t.TempDir(), "checkpoints"), gitshadow.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		switch n := len(req.Input); {
		case n == 1:
			return fakes.Python("write a")
		case n == 3:
			return fakes.Python("shell")
		}
		return fakes.Text("done")
	})
	r.tune = func(o *engine.Options) { o.Checkpoints = shadows }
	r.svc = r.newService()
	ws := r.workspace
	write(t, ws, "c.txt", "c\n", 0o644)
	write(t, ws, "d.txt", "1\n1\n", 0o644)
	write(t, ws, "e.sh", "echo e\n", 0o644)
	write(t, ws, "keep.txt", "k\n", 0o644)
	r.kernel.SetResult(func(n int, cell albedo.Cell) (albedo.CellResult, error) {
		switch cell.Code {
		case "write a":
			write(t, ws, "a.txt", "a\n", 0o644)
		case "shell":
			write(t, ws, "b.txt", "x\n", 0o644)
			os.Remove(filepath.Join(ws, "c.txt"))
			write(t, ws, "d.txt", "2\n2\n", 0o644)
			os.Chmod(filepath.Join(ws, "e.sh"), 0o755)
		}
		return albedo.CellResult{Status: albedo.CellOK}, nil
	})
	rr := &rewindRig{rig: r, before: files(t, ws)}
	rr.id = r.session(respProvider).ID
	r.turn(rr.id, "go")
	rr.after = files(t, ws)
	return rr
}

// write writes a file of the workspace with mode.
func write(t *testing.T, ws, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(ws, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// files describes each file of ws: its mode and its content's hash.
func files(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(ws, p)
		out[rel] = fi.Mode().String() + " " + hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// paths lists the paths of changes.
func paths(changes []albedo.FileChange) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Path)
	}
	return out
}

func TestEachCellRecordsTheSnapshotsAroundIt(t *testing.T) {
	r := newRewindRig(t)
	var steps []albedo.Step
	for _, it := range r.history(r.id) {
		if it.Kind == albedo.KindToolOutput {
			if it.Result.Trace.Checkpoint == nil {
				t.Fatalf("output %d records no snapshots", it.Seq)
			}
			steps = append(steps, albedo.Step{Seq: it.Seq, Checkpoint: *it.Result.Trace.Checkpoint})
		}
	}
	if len(steps) != 2 {
		t.Fatalf("%d cells recorded snapshots; want 2", len(steps))
	}
	if steps[0].Before == "" || steps[0].Before == steps[0].After || steps[1].Before != steps[0].After || steps[1].After == steps[1].Before {
		t.Fatalf("snapshots do not chain: %+v", steps)
	}
}

func TestARewindPutsBackWhatTheCellsDidAndCanBeUndone(t *testing.T) {
	r := newRewindRig(t)
	dry, err := r.svc.Rewind(r.ctx, r.id, engine.Rewind{Checkpoint: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(dry.Restore), []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.sh"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("dry run restores %q; want %q", got, want)
	}
	if got := files(t, r.workspace); !reflect.DeepEqual(got, r.after) {
		t.Fatalf("a dry run changed files: %v", got)
	}
	done, err := r.svc.Rewind(r.ctx, r.id, engine.Rewind{Checkpoint: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(t, r.workspace); !reflect.DeepEqual(got, r.before) {
		t.Fatalf("after the rewind: %v; want %v", got, r.before)
	}
	if done.Undo == 0 {
		t.Fatal("no undo checkpoint")
	}
	if _, err := r.svc.Rewind(r.ctx, r.id, engine.Rewind{Checkpoint: done.Undo}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, r.workspace); !reflect.DeepEqual(got, r.after) {
		t.Fatalf("after the undo: %v; want %v", got, r.after)
	}
}

func TestARewindKeepsTheUsersChangesAndRefusesShared(t *testing.T) {
	r := newRewindRig(t)
	write(t, r.workspace, "d.txt", "user\n", 0o644)
	write(t, r.workspace, "u.txt", "user\n", 0o644)
	touched := files(t, r.workspace)
	_, err := r.svc.Rewind(r.ctx, r.id, engine.Rewind{Checkpoint: 1})
	if albedo.ErrorCode(err) != albedo.EConflict || !strings.Contains(err.Error(), "d.txt") {
		t.Fatalf("got %v; want a conflict naming d.txt", err)
	}
	if got := files(t, r.workspace); !reflect.DeepEqual(got, touched) {
		t.Fatalf("a refused rewind changed files: %v", got)
	}
	done, err := r.svc.Rewind(r.ctx, r.id, engine.Rewind{Checkpoint: 1, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(done.Kept); !reflect.DeepEqual(got, []string{"u.txt"}) {
		t.Fatalf("kept %q; want u.txt", got)
	}
	want := maps(r.before, map[string]string{"u.txt": touched["u.txt"]})
	if got := files(t, r.workspace); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a forced rewind: %v; want %v", got, want)
	}
}

// maps merges b into a copy of a.
func maps(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestTheModelIsToldOfARewindInItsNextRequest(t *testing.T) {
	r := newRewindRig(t)
	if _, err := r.svc.Rewind(r.ctx, r.id, engine.Rewind{Checkpoint: 1}); err != nil {
		t.Fatal(err)
	}
	r.turn(r.id, "next")
	reqs := r.provider.Requests()
	last := reqs[len(reqs)-1]
	var notes int
	for _, in := range last.Input {
		if strings.Contains(string(in), "rewound the workspace") {
			notes++
		}
	}
	if notes != 1 {
		t.Fatalf("the next request carries %d rewind notes; want 1", notes)
	}
}

func TestARewindThatForksLeavesTheSessionAsItWas(t *testing.T) {
	r := newRewindRig(t)
	was := r.history(r.id)
	done, err := r.svc.Rewind(r.ctx, r.id, engine.Rewind{Checkpoint: 1, Fork: true})
	if err != nil {
		t.Fatal(err)
	}
	if done.Fork == nil || done.Fork.ParentID != r.id {
		t.Fatalf("no fork: %+v", done.Fork)
	}
	if got := r.history(r.id); len(got) != len(was) {
		t.Fatalf("the session changed: %d items, was %d", len(got), len(was))
	}
	if got := files(t, r.workspace); !reflect.DeepEqual(got, r.before) {
		t.Fatalf("after the rewind: %v", got)
	}
	if _, err := r.svc.Rewind(r.ctx, done.Fork.ID, engine.Rewind{Checkpoint: done.Undo}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, r.workspace); !reflect.DeepEqual(got, r.after) {
		t.Fatalf("after the undo in the fork: %v", got)
	}
}

func TestWithoutSnapshotsARewindIsAConflict(t *testing.T) {
	r := newRig(t, func(albedo.ModelRequest) fakes.Reply { return fakes.Text("hi") })
	id := r.sessionAfter(respProvider, "hello").ID
	if _, err := r.svc.Rewind(r.ctx, id, engine.Rewind{Checkpoint: 1}); albedo.ErrorCode(err) != albedo.EConflict {
		t.Fatalf("got %v; want a conflict", err)
	}
}

func TestCheckpointsListWhatEachStepChangedAndWhatChangedOutside(t *testing.T) {
	r := newRewindRig(t)
	write(t, r.workspace, "u.txt", "user\n", 0o644)
	done, err := r.svc.Rewind(r.ctx, r.id, engine.Rewind{Checkpoint: 1})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := r.svc.Checkpoints(r.ctx, r.id)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || steps[2].Seq != done.Undo+1 {
		t.Fatalf("%d steps (%+v); want the two cells and the rewind", len(steps), steps)
	}
	for i, want := range [][]string{{"a.txt"}, {"b.txt", "c.txt", "d.txt", "e.sh"}, {"a.txt", "b.txt", "c.txt", "d.txt", "e.sh"}} {
		if got := paths(steps[i].Changes); !reflect.DeepEqual(got, want) {
			t.Errorf("step %d changed %q; want %q", i+1, got, want)
		}
	}
	if got := paths(steps[2].Outside); !reflect.DeepEqual(got, []string{"u.txt"}) {
		t.Errorf("outside before the rewind: %q; want u.txt", got)
	}
}
