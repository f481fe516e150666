package pykernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShimIsAskedOncePerWorkspace: a version manager's shim in front of
// python3 runs for the first kernel of a workspace only; later kernels
// there start the interpreter it chose directly.
func TestShimIsAskedOncePerWorkspace(t *testing.T) {
	real, err := interpreter()
	if err != nil || real == "" {
		t.Skipf("python3 is needed: %v", err)
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	shim := filepath.Join(dir, "python3")
	script := "#!/bin/sh\necho called >> " + calls + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(shim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	k := newKernels(t, Options{Python: shim})
	workspace := t.TempDir()
	for range 3 {
		if res := run(t, k, "s", workspace, "1"); res.Value != "1" {
			t.Fatalf("cell = %+v", res)
		}
		if err := k.Stop(t.Context(), "s"); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(calls)
	if n := strings.Count(string(data), "called"); n != 1 {
		t.Errorf("the shim ran %d times for three kernels in one workspace, want 1", n)
	}
	other := t.TempDir()
	if res := run(t, k, "t", other, "1"); res.Value != "1" {
		t.Fatalf("cell = %+v", res)
	}
	data, _ = os.ReadFile(calls)
	if n := strings.Count(string(data), "called"); n != 2 {
		t.Errorf("the shim ran %d times after a kernel in a new workspace, want 2", n)
	}
}
