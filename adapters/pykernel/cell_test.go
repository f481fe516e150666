package pykernel

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

func TestCellResults(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	tests := []struct {
		name   string
		code   string
		status albedo.CellStatus
		output string // exact
		value  string // exact
		errors []string
		absent []string // must not be in Error
	}{
		{name: "final expression", code: "1 + 1", status: albedo.CellOK, value: "2"},
		{name: "repr of a string", code: "'a' * 3", status: albedo.CellOK, value: "'aaa'"},
		{name: "None is no value", code: "None", status: albedo.CellOK},
		{name: "statement has no value", code: "y = 2", status: albedo.CellOK},
		{name: "value not printed", code: "print('a')\n'b'", status: albedo.CellOK, output: "a\n", value: "'b'"},
		{
			name:   "stdout and stderr in order",
			code:   "import sys\nprint('out')\nprint('err', file=sys.stderr)\nprint('out again')",
			status: albedo.CellOK,
			output: "out\nerr\nout again\n",
		},
		{
			name:   "child process output",
			code:   "import subprocess, sys\nprint('before', flush=True)\n_ = subprocess.run([sys.executable, '-c', 'print(\"from a child\")'])\nprint('after')",
			status: albedo.CellOK,
			output: "before\nfrom a child\nafter\n",
		},
		{name: "no newline", code: "print('x', end='')", status: albedo.CellOK, output: "x"},
		{
			name:   "top-level await",
			code:   "import asyncio\nawait asyncio.sleep(0.01)\n41 + 1",
			status: albedo.CellOK,
			value:  "42",
		},
		{
			name:   "awaited final expression",
			code:   "import asyncio\nasync def f():\n    await asyncio.sleep(0)\n    return 'done'\nawait f()",
			status: albedo.CellOK,
			value:  "'done'",
		},
		{
			name:   "exception",
			code:   "print('partial')\ndef boom():\n    raise ValueError('boom')\nboom()",
			status: albedo.CellError,
			output: "partial\n",
			errors: []string{"Traceback (most recent call last):", `File "<cell `, "in boom", "raise ValueError('boom')", "ValueError: boom"},
			absent: []string{"albedo-kernel", "run_until_complete"},
		},
		{
			name:   "exception in awaited code",
			code:   "import asyncio\nasync def f():\n    await asyncio.sleep(0)\n    raise KeyError('k')\nawait f()",
			status: albedo.CellError,
			errors: []string{"in f", "KeyError: 'k'"},
			absent: []string{"albedo-kernel", "base_events"},
		},
		{
			name:   "syntax error",
			code:   "x = (",
			status: albedo.CellError,
			errors: []string{"SyntaxError"},
			absent: []string{"albedo-kernel", "Traceback"},
		},
		{name: "input fails", code: "input('name? ')", status: albedo.CellError, output: "name? ", errors: []string{"EOFError"}},
		{name: "sys.exit is an error", code: "import sys\nsys.exit(3)", status: albedo.CellError, errors: []string{"SystemExit: 3"}},
		{name: "kernel survives sys.exit", code: "'alive'", status: albedo.CellOK, value: "'alive'"},
		{name: "helpers present", code: "[callable(f) for f in (vent, vents, resolve_vent, _host)]", status: albedo.CellOK, value: "[True, True, True, True]"},
		{name: "main module", code: "__name__", status: albedo.CellOK, value: "'__main__'"},
		{name: "unicode output", code: "print('héllo ✓')", status: albedo.CellOK, output: "héllo ✓\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, k, "cells", workspace, tt.code)
			if res.Status != tt.status {
				t.Fatalf("status = %q, want %q; error: %s", res.Status, tt.status, res.Error)
			}
			if res.Output != tt.output {
				t.Errorf("output = %q, want %q", res.Output, tt.output)
			}
			if res.Value != tt.value {
				t.Errorf("value = %q, want %q", res.Value, tt.value)
			}
			for _, want := range tt.errors {
				if !strings.Contains(res.Error, want) {
					t.Errorf("error lacks %q:\n%s", want, res.Error)
				}
			}
			for _, unwanted := range tt.absent {
				if strings.Contains(res.Error, unwanted) {
					t.Errorf("error has %q:\n%s", unwanted, res.Error)
				}
			}
			if len(res.Notes) != 0 {
				t.Errorf("notes = %q, want none", res.Notes)
			}
		})
	}
}

func TestFreshGlobals(t *testing.T) {
	k := newKernels(t, Options{})
	res := run(t, k, "fresh", t.TempDir(), "sorted(globals())")
	want := "['HostError', '__annotations__', '__builtins__', '__doc__', '__loader__', '__name__', '__package__', '__spec__', '_host', 'jobs', 'resolve_vent', 'run', 'show_image', 'vent', 'vents']"
	if res.Value != want {
		t.Errorf("fresh globals = %s, want %s", res.Value, want)
	}
}

func TestGlobalsPersistWithinASession(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	steps := []struct {
		session, code, value string
		status               albedo.CellStatus
	}{
		{"a", "x = 41\nimport json\ndef inc(v):\n    return v + 1", "", albedo.CellOK},
		{"a", "inc(x)", "42", albedo.CellOK},
		{"a", "json.dumps([x])", "'[41]'", albedo.CellOK},
		{"b", "x", "", albedo.CellError},
		{"b", "x = 'b'", "", albedo.CellOK},
		{"a", "x", "41", albedo.CellOK},
	}
	for i, step := range steps {
		res := run(t, k, step.session, workspace, step.code)
		if res.Status != step.status || res.Value != step.value {
			t.Fatalf("step %d (%s: %q) = %q %q, want %q %q; error: %s",
				i, step.session, step.code, res.Status, res.Value, step.status, step.value, res.Error)
		}
	}
}

func TestCellsOfASessionTakeTurns(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	run(t, k, "turns", workspace, "n = 0")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				// Without turns, the read and the write would interleave.
				if res := run(t, k, "turns", workspace, "m = n\nimport time\ntime.sleep(0.001)\nn = m + 1"); res.Status != albedo.CellOK {
					t.Errorf("status %q: %s", res.Status, res.Error)
				}
			}
		})
	}
	wg.Wait()
	if res := run(t, k, "turns", workspace, "n"); res.Value != "20" {
		t.Errorf("n = %s, want 20", res.Value)
	}
}

func TestWorkspace(t *testing.T) {
	k := newKernels(t, Options{})
	first, second := t.TempDir(), t.TempDir()
	if res := run(t, k, "ws", first, "import os\nos.getcwd()"); res.Value != repr(first) {
		t.Fatalf("cwd = %s, want %s", res.Value, repr(first))
	}
	// A cell's own chdir holds while the workspace stays the same.
	if res := run(t, k, "ws", first, "os.chdir('/')\nos.getcwd()"); res.Value != "'/'" {
		t.Fatalf("cwd after chdir = %s", res.Value)
	}
	if res := run(t, k, "ws", first, "os.getcwd()"); res.Value != "'/'" {
		t.Fatalf("cwd in the next cell = %s", res.Value)
	}
	if res := run(t, k, "ws", second, "os.getcwd()"); res.Value != repr(second) {
		t.Fatalf("cwd in a new workspace = %s, want %s", res.Value, repr(second))
	}
	res := run(t, k, "ws", second+"/missing", "1")
	if res.Status != albedo.CellError || !strings.Contains(res.Error, "cannot enter the workspace") {
		t.Fatalf("missing workspace: %q %q", res.Status, res.Error)
	}
}

func TestOutputIsCapped(t *testing.T) {
	const limit = 1000
	k := newKernels(t, Options{OutputLimit: limit})
	workspace := t.TempDir()
	began := time.Now()
	res := run(t, k, "big", workspace, "import sys\nsys.stdout.write('a' * 1000)\nfor _ in range(100):\n    sys.stdout.write('x' * 1_000_000)\nprint('the end')\n'v' * 5000")
	took := time.Since(began)
	if res.Status != albedo.CellOK {
		t.Fatalf("status %q: %s", res.Status, res.Error)
	}
	if len(res.Output) > limit+64 {
		t.Errorf("output has %d bytes, want about %d", len(res.Output), limit)
	}
	if !strings.HasPrefix(res.Output, strings.Repeat("a", limit/2)) || !strings.HasSuffix(res.Output, "xthe end\n") {
		t.Errorf("output does not keep head and tail: %q", res.Output)
	}
	cut := 1000 + 100_000_000 + len("the end\n") - limit
	if want := "\n[... " + strconv.Itoa(cut) + " bytes cut ...]\n"; !strings.Contains(res.Output, want) {
		t.Errorf("output lacks %q: %q", want, res.Output)
	}
	if len(res.Value) > limit+64 || !strings.Contains(res.Value, "characters cut") {
		t.Errorf("value not capped: %d bytes", len(res.Value))
	}
	t.Logf("100 MB of output took %s", took)
	if res := run(t, k, "big", workspace, "print('small')"); res.Output != "small\n" {
		t.Errorf("next cell output = %q", res.Output)
	}
}

func TestEnvironment(t *testing.T) {
	k := newKernels(t, Options{Env: []string{
		"PATH=/usr/bin:/bin",
		"HOME=/home/someone",
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
		"ALBEDO_API_KEY=secret",
		"ALBEDO_TOKEN=secret",
		"ALBEDO_HOME=/somewhere",
		"OPENAI_API_KEY=secret",
		"GITHUB_TOKEN=secret",
		"AWS_SECRET=secret",
		"UNLISTED=1",
	}})
	res := run(t, k, "env", t.TempDir(),
		"import os\nsorted(k for k in os.environ if k in ('PATH', 'HOME', 'LANG', 'LC_ALL') or 'SECRET' in k or 'KEY' in k or 'TOKEN' in k or k.startswith('ALBEDO') or k == 'UNLISTED')")
	if want := "['HOME', 'LANG', 'LC_ALL', 'PATH']"; res.Value != want {
		t.Errorf("environment = %s, want %s (error %s)", res.Value, want, res.Error)
	}
}

func TestMissingPython(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	k := New(Options{})
	defer k.Close(t.Context())
	_, err := k.Run(t.Context(), albedo.Cell{SessionID: "s", Workspace: t.TempDir(), Code: "1"})
	want := "python3 not found on PATH; albedo needs Python 3.9 or newer for its python tool"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("err = %v, want one ending %q", err, want)
	}
}

func TestOldPython(t *testing.T) {
	old := os.Getenv("PYKERNEL_TEST_OLD_PYTHON")
	if old == "" {
		t.Skip("set PYKERNEL_TEST_OLD_PYTHON to a Python older than 3.9")
	}
	k := newKernels(t, Options{Python: old})
	_, err := k.Run(t.Context(), albedo.Cell{SessionID: "s", Workspace: t.TempDir(), Code: "1"})
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "needs Python 3.9 or newer") {
		t.Fatalf("err = %v", err)
	}
}

// repr is Python's repr of a string without quotes or backslashes.
func repr(s string) string { return "'" + s + "'" }
