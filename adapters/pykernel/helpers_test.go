package pykernel

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// interpreter is the Python the tests run: $PYKERNEL_TEST_PYTHON, or else
// the real python3 behind PATH's "python3", which may be a version
// manager's shim that costs a shell start per kernel.
var interpreter = sync.OnceValues(func() (string, error) {
	python := os.Getenv("PYKERNEL_TEST_PYTHON")
	if python == "" {
		python = "python3"
	}
	out, err := exec.Command(python, "-c", "import sys; print(sys.executable)").Output()
	return strings.TrimSpace(string(out)), err
})

// testOptions returns options for tests: the real interpreter and a quiet
// logger, unless opts says otherwise.
func testOptions(t testing.TB, opts Options) Options {
	t.Helper()
	python, err := interpreter()
	if err != nil || python == "" {
		t.Skipf("python3 is needed: %v", err)
	}
	if opts.Python == "" {
		opts.Python = python
	}
	return opts
}

// newKernels returns Kernels closed when the test ends.
func newKernels(t testing.TB, opts Options) *Kernels {
	t.Helper()
	k := New(testOptions(t, opts))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := k.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return k
}

// run runs code in a session with a workspace and fails the test on error.
// The cell declares the vent host calls, as albedo's cells do, with no host
// to answer them.
func run(t testing.TB, k *Kernels, session, workspace, code string) albedo.CellResult {
	t.Helper()
	return runCell(t, k, context.Background(), albedo.Cell{SessionID: session, Workspace: workspace, Code: code, HostCalls: ventCalls})
}

// runCell runs a cell and fails the test on error.
func runCell(t testing.TB, k *Kernels, ctx context.Context, cell albedo.Cell) albedo.CellResult {
	t.Helper()
	res, err := k.Run(ctx, cell)
	if err != nil {
		t.Fatalf("Run(%q): %v", cell.Code, err)
	}
	return res
}

// pidOf returns the pid of a session's running kernel, or 0.
func pidOf(k *Kernels, session string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s := k.sessions[session]; s != nil && s.proc != nil {
		return s.proc.pid
	}
	return 0
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits up to d for process pid to be gone.
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return !alive(pid)
}
