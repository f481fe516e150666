package pykernel

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

func TestKernelDeathIsAResult(t *testing.T) {
	tests := []struct {
		name, code, exit string
	}{
		{"exit", "import os\nprint('last words', flush=True)\nos._exit(3)", "exit status 3"},
		{"segfault", "import ctypes\nctypes.string_at(0)", "signal: segmentation fault"},
		{"killed", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "signal: killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKernels(t, Options{})
			workspace := t.TempDir()
			run(t, k, "s", workspace, "kept = 1")
			res := run(t, k, "s", workspace, tt.code)
			if res.Status != albedo.CellError || !strings.Contains(res.Error, "The python kernel exited") || !strings.Contains(res.Error, tt.exit) {
				t.Fatalf("result = %q %q, want an error naming %q", res.Status, res.Error, tt.exit)
			}
			if tt.name == "exit" && res.Output != "last words\n" {
				t.Errorf("output = %q", res.Output)
			}
			if len(res.Notes) != 1 || res.Notes[0] != goneNote {
				t.Errorf("notes = %q", res.Notes)
			}
			next := run(t, k, "s", workspace, "'kept' in globals()")
			if next.Value != "False" || !next.Fresh || len(next.Notes) != 0 {
				t.Errorf("next = %q, fresh %v, notes %q; want False from a fresh kernel, without notes (the domain tells the model)", next.Value, next.Fresh, next.Notes)
			}
			if after := run(t, k, "s", workspace, "1"); len(after.Notes) != 0 || after.Fresh {
				t.Errorf("the cell after has notes %q, fresh %v", after.Notes, after.Fresh)
			}
		})
	}
}

func TestKernelDeathBetweenCells(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	run(t, k, "s", workspace, "import os, threading\nthreading.Timer(0.1, os._exit, (0,)).start()")
	pid := pidOf(k, "s")
	if !waitGone(pid, 2*time.Second) {
		t.Fatalf("kernel %d did not exit", pid)
	}
	res := run(t, k, "s", workspace, "'os' in globals()")
	if res.Value != "False" || !res.Fresh || len(res.Notes) != 0 {
		t.Errorf("after the death: %q %q, fresh %v, notes %q", res.Value, res.Error, res.Fresh, res.Notes)
	}
}

func TestStop(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	if err := k.Stop(t.Context(), "never ran"); err != nil {
		t.Fatalf("Stop without a kernel: %v", err)
	}
	first := run(t, k, "s", workspace, "x = 1")
	if len(first.Notes) != 0 || first.Fresh {
		t.Errorf("first result has notes %q, fresh %v", first.Notes, first.Fresh)
	}
	pid := pidOf(k, "s")
	if err := k.Stop(t.Context(), "s"); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !waitGone(pid, time.Second) {
		t.Errorf("kernel %d still runs after Stop", pid)
	}
	res := run(t, k, "s", workspace, "'x' in globals()")
	if res.Value != "False" || !res.Fresh || len(res.Notes) != 0 {
		t.Errorf("after Stop: %q, fresh %v, notes %q", res.Value, res.Fresh, res.Notes)
	}
}

func TestStopDuringACell(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	run(t, k, "s", workspace, "1")
	time.AfterFunc(200*time.Millisecond, func() { _ = k.Stop(context.Background(), "s") })
	res := run(t, k, "s", workspace, "import time\ntime.sleep(30)")
	if res.Status != albedo.CellInterrupted || !strings.Contains(res.Error, "stopped") {
		t.Fatalf("result = %q %q", res.Status, res.Error)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	k := New(testOptions(t, Options{}))
	workspace := t.TempDir()
	var pids []int
	for _, session := range []string{"a", "b", "c"} {
		// Each kernel leaves a child behind, which must go too.
		res := run(t, k, session, workspace, "import subprocess\nchild = subprocess.Popen(['sleep', '60'])\nchild.pid")
		child, err := strconv.Atoi(res.Value)
		if err != nil {
			t.Fatalf("child pid %q: %s", res.Value, res.Error)
		}
		pids = append(pids, pidOf(k, session), child)
	}
	if err := k.Close(t.Context()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, pid := range pids {
		if !waitGone(pid, time.Second) {
			t.Errorf("process %d still runs after Close", pid)
		}
	}
	if _, err := k.Run(t.Context(), albedo.Cell{SessionID: "a", Workspace: workspace, Code: "1"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
}

func TestKernelExitsWhenTheControlPipeCloses(t *testing.T) {
	k := newKernels(t, Options{})
	res := run(t, k, "s", t.TempDir(), "import subprocess\nsubprocess.Popen(['sleep', '60']).pid")
	child, err := strconv.Atoi(res.Value)
	if err != nil {
		t.Fatalf("child pid %q: %s", res.Value, res.Error)
	}
	k.mu.Lock()
	p := k.sessions["s"].proc
	k.mu.Unlock()
	// Close the daemon's end without any signal, as the death of the daemon
	// would.
	if err := p.ctl.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{p.pid, child} {
		if !waitGone(pid, 2*time.Second) {
			t.Errorf("process %d still runs 2s after the control pipe closed", pid)
		}
	}
}

// TestKernelsDieWithTheDaemon kills -9 a process running kernels (this test
// binary, run again as helperDaemon) and expects its kernels, and what they
// started, to exit by themselves.
func TestKernelsDieWithTheDaemon(t *testing.T) {
	python := testOptions(t, Options{}).Python
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDaemon$")
	// The helper is killed, so its own t.TempDir cleanups never run: its
	// temporary folders go under this test's, which removes them.
	cmd.Env = append(os.Environ(), "PYKERNEL_HELPER_DAEMON="+python, "TMPDIR="+t.TempDir())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(out)
	var pids []int
	for len(pids) < 4 && lines.Scan() {
		if pid, ok := strings.CutPrefix(lines.Text(), "pid "); ok {
			n, err := strconv.Atoi(pid)
			if err != nil {
				t.Fatal(err)
			}
			pids = append(pids, n)
		}
	}
	if len(pids) < 4 {
		t.Fatalf("the helper reported %d pids: %v", len(pids), lines.Err())
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("process %d is not running", pid)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for _, pid := range pids {
		if !waitGone(pid, 2*time.Second) {
			t.Errorf("process %d still runs 2s after its daemon was killed", pid)
		}
	}
}

// TestHelperDaemon is the daemon TestKernelsDieWithTheDaemon kills: it
// starts two kernels, each with a child, prints their pids and waits.
func TestHelperDaemon(t *testing.T) {
	python := os.Getenv("PYKERNEL_HELPER_DAEMON")
	if python == "" {
		t.Skip("run by TestKernelsDieWithTheDaemon")
	}
	k := New(Options{Python: python})
	for _, session := range []string{"a", "b"} {
		res := run(t, k, session, t.TempDir(), "import subprocess\nsubprocess.Popen(['sleep', '60']).pid")
		fmt.Printf("pid %d\npid %s\n", pidOf(k, session), res.Value)
	}
	time.Sleep(time.Minute)
}

// TestTheKernelIsToldWhenTheDaemonDies: Linux signals a kernel the moment
// its daemon dies (the kernel's handler then ends it and its jobs before
// the running cell goes on); the same signal while the daemon lives changes
// nothing.
func TestTheKernelIsToldWhenTheDaemonDies(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux signals a process when its parent dies")
	}
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	res := run(t, k, "d", workspace, "import ctypes\nsig = ctypes.c_int()\nctypes.CDLL(None).prctl(2, ctypes.byref(sig))\nsig.value") // PR_GET_PDEATHSIG
	if res.Value != strconv.Itoa(int(deathSignal)) {
		t.Fatalf("the kernel's death signal = %q %q, want %d", res.Value, res.Error, deathSignal)
	}
	pid := pidOf(k, "d")
	if err := syscall.Kill(pid, deathSignal); err != nil {
		t.Fatal(err)
	}
	if res := run(t, k, "d", workspace, "sig.value"); pidOf(k, "d") != pid || res.Value != strconv.Itoa(int(deathSignal)) || res.Fresh {
		t.Errorf("after a death signal while the daemon lives: pid %d (was %d), %q %q", pidOf(k, "d"), pid, res.Value, res.Error)
	}
}

// TestTheKernelImportsNothingFromTheWorkspaceAtStart: a workspace holding
// json.py (which the kernel imports as it starts) does not run it; a cell
// still imports the workspace's own modules, as an interpreter started
// there would.
func TestTheKernelImportsNothingFromTheWorkspaceAtStart(t *testing.T) {
	ws := t.TempDir()
	ran := filepath.Join(ws, "ran")
	files := map[string]string{
		"json.py":  fmt.Sprintf("open(%q, 'w').close()\n", ran),
		"mymod.py": "X = 42\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	k := newKernels(t, Options{})
	res := run(t, k, "s", ws, "import mymod, json\n(mymod.X, json.dumps([1]))")
	if res.Status != "ok" || res.Value != "(42, '[1]')" {
		t.Errorf("cell = %+v, want the workspace's module and the standard json", res)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the workspace's json.py ran in the kernel")
	}
}
