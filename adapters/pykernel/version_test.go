package pykernel

import (
	"context"
	"regexp"
	"testing"
)

// TestPythonVersionComesFromKernelStarts: unknown until a kernel started
// in the workspace, then the version it reported.
func TestPythonVersionComesFromKernelStarts(t *testing.T) {
	k := newKernels(t, Options{})
	ws := t.TempDir()
	if v := k.PythonVersion(context.Background(), ws); v != "" {
		t.Errorf("version %q before any kernel started", v)
	}
	run(t, k, "s1", ws, "1")
	if v := k.PythonVersion(context.Background(), ws); !regexp.MustCompile(`^3\.\d+\.\d+`).MatchString(v) {
		t.Errorf("version after a kernel started = %q", v)
	}
	if v := k.PythonVersion(context.Background(), t.TempDir()); v != "" {
		t.Errorf("version of another workspace = %q", v)
	}
}
