package pykernel

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestTrace(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	at := func(name string) string { return filepath.Join(workspace, name) }
	for _, name := range []string{"old.txt", "gone.txt", "moved.txt", "same.txt", "tree/a.txt"} {
		if err := os.MkdirAll(filepath.Dir(at(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(at(name), []byte("before"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type (
		acts    = []albedo.Activity
		changes = []albedo.Change
	)
	tests := []struct {
		name       string
		code       string
		activities acts
		changes    changes
	}{
		{
			name:       "pathlib write then read",
			code:       "from pathlib import Path\nPath('example.txt').write_text('hi')\nPath('example.txt').read_text()",
			activities: acts{{Kind: "write", Target: at("example.txt")}, {Kind: "read", Target: at("example.txt")}},
			changes:    changes{{Path: at("example.txt"), Kind: "created"}},
		},
		{
			name:       "repeated reads count once",
			code:       "for _ in range(3):\n    open('old.txt').read()",
			activities: acts{{Kind: "read", Target: at("old.txt")}},
			changes:    changes{},
		},
		{
			name:       "append modifies",
			code:       "with open('old.txt', 'a') as f:\n    f.write('more')",
			activities: acts{{Kind: "write", Target: at("old.txt")}},
			changes:    changes{{Path: at("old.txt"), Kind: "modified"}},
		},
		{
			name:       "read-write mode reads and writes",
			code:       "with open('old.txt', 'r+') as f:\n    f.read()\n    f.write('!')",
			activities: acts{{Kind: "read", Target: at("old.txt")}, {Kind: "write", Target: at("old.txt")}},
			changes:    changes{{Path: at("old.txt"), Kind: "modified"}},
		},
		{
			name:       "opened for writing but untouched",
			code:       "open('same.txt', 'a').close()",
			activities: acts{{Kind: "write", Target: at("same.txt")}},
			changes:    changes{},
		},
		{
			name:       "remove and rename",
			code:       "import os\nos.remove('gone.txt')\nos.rename('moved.txt', 'sub-moved.txt')",
			activities: acts{{Kind: "write", Target: at("gone.txt")}, {Kind: "write", Target: at("moved.txt")}, {Kind: "write", Target: at("sub-moved.txt")}},
			changes:    changes{{Path: at("gone.txt"), Kind: "deleted"}, {Path: at("moved.txt"), Kind: "deleted"}, {Path: at("sub-moved.txt"), Kind: "created"}},
		},
		{
			name:       "temporary file leaves no change",
			code:       "import os\nopen('tmp.txt', 'w').close()\nos.unlink('tmp.txt')",
			activities: acts{{Kind: "write", Target: at("tmp.txt")}},
			changes:    changes{},
		},
		{
			name:       "directories",
			code:       "import os, shutil\nos.mkdir('newdir')\nshutil.rmtree('tree')",
			activities: acts{{Kind: "write", Target: at("tree/a.txt")}, {Kind: "write", Target: at("tree")}},
			changes:    changes{{Path: at("newdir"), Kind: "created"}, {Path: at("tree/a.txt"), Kind: "deleted"}, {Path: at("tree"), Kind: "deleted"}},
		},
		{
			name:       "absolute and dotted paths",
			code:       "open(" + repr(at("x/../abs.txt")) + ", 'w').close()",
			activities: acts{{Kind: "write", Target: at("abs.txt")}},
			changes:    changes{{Path: at("abs.txt"), Kind: "created"}},
		},
		{
			name:       "os.open",
			code:       "import os\nos.close(os.open('low.txt', os.O_WRONLY | os.O_CREAT))",
			activities: acts{{Kind: "write", Target: at("low.txt")}},
			changes:    changes{{Path: at("low.txt"), Kind: "created"}},
		},
		{
			name:       "python installation and failed opens are skipped",
			code:       "import csv, json, os\nopen(os.path.join(os.path.dirname(os.__file__), 'os.py')).read()\ntry:\n    open('missing.txt')\nexcept OSError:\n    pass\nopen('/proc/self/status').read()",
			activities: acts{},
			changes:    changes{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, k, "trace", workspace, tt.code)
			if res.Status != albedo.CellOK {
				t.Fatalf("status %q: %s", res.Status, res.Error)
			}
			if !reflect.DeepEqual(res.Trace.Activities, tt.activities) {
				t.Errorf("activities = %+v\nwant %+v", res.Trace.Activities, tt.activities)
			}
			if !reflect.DeepEqual(res.Trace.Changes, tt.changes) {
				t.Errorf("changes = %+v\nwant %+v", res.Trace.Changes, tt.changes)
			}
		})
	}
}

func TestTraceIsCapped(t *testing.T) {
	k := newKernels(t, Options{})
	res := run(t, k, "trace", t.TempDir(), "for i in range(300):\n    open(f'f{i}.txt', 'w').close()")
	if n := len(res.Trace.Activities); n != 200 {
		t.Errorf("%d activities, want 200", n)
	}
	if n := len(res.Trace.Changes); n != 200 {
		t.Errorf("%d changes, want 200", n)
	}
	if got := res.Trace.Activities[0].Target; !strings.HasSuffix(got, "/f0.txt") {
		t.Errorf("first activity %s, want f0.txt", got)
	}
}

func TestTraceOfAFailedCell(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	res := run(t, k, "trace", workspace, "open('written.txt', 'w').close()\nraise ValueError")
	want := []albedo.Change{{Path: filepath.Join(workspace, "written.txt"), Kind: "created"}}
	if res.Status != albedo.CellError || !reflect.DeepEqual(res.Trace.Changes, want) {
		t.Errorf("result %q with changes %+v, want an error with %+v", res.Status, res.Trace.Changes, want)
	}
}
