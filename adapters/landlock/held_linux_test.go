//go:build linux

package landlock

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// skipper is a helper that skips the confinement: it drops HelperCommand,
// SPEC and "--" and runs the rest as it is.
const skipper = "#!/bin/sh\nshift 3\nexec \"$@\"\n"

func TestAHelperReplacedFromTheWorkspaceStillConfinesTheNextKernel(t *testing.T) {
	abi := KernelABI()
	if abi < 1 {
		t.Skip("this kernel has no Landlock")
	}
	tests := []struct {
		name    string
		replace func(path string) error
	}{
		{"renamed over", func(path string) error {
			if err := os.WriteFile(path+".new", []byte(skipper), 0o755); err != nil {
				return err
			}
			return os.Rename(path+".new", path)
		}},
		{"written in place", func(path string) error { return os.WriteFile(path, []byte(skipper), 0o755) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, "albedo/config.json", "user/", "tmp/", "ws/bin/")
			helper := filepath.Join(root, "ws", "bin", "albedo-sandbox")
			copyFile(t, os.Args[0], helper)
			sb := New(Options{Helper: []string{helper, HelperCommand}, Home: filepath.Join(root, "albedo"), UserHome: filepath.Join(root, "user"), TempRoot: filepath.Join(root, "tmp")})
			t.Cleanup(func() { _ = sb.Close() })
			if err := tt.replace(helper); err != nil {
				t.Fatal(err)
			}
			out, err := runKernel(t, sb, filepath.Join(root, "ws"), "cat "+filepath.Join(root, "albedo", "config.json"))
			if err == nil || !strings.Contains(out, "ermission denied") {
				t.Errorf("the kernel read albedo's home through the replaced helper: %v: %s", err, out)
			}
		})
	}
}

func TestTheDaemonsOwnBinaryIsHeldByRunningIt(t *testing.T) {
	if !writesRefused() {
		t.Skip("this kernel lets a running program's file be written")
	}
	sb := New(Options{Helper: []string{os.Args[0], HelperCommand}})
	t.Cleanup(func() { _ = sb.Close() })
	if got := sb.helper.argv; len(got) != 2 || got[0] != selfExe || got[1] != HelperCommand {
		t.Errorf("helper argv = %q, want %s %s", got, selfExe, HelperCommand)
	}
}

func TestAHelperThatCannotBeHeldIsRefusedWhereAKernelMayWrite(t *testing.T) {
	tests := []struct {
		name   string
		helper string // under the test's root; none exists, so none can be held
		mode   albedo.SandboxMode
		refuse bool
	}{
		{"in the workspace", "ws/bin/albedo-sandbox", albedo.SandboxWorkspaceWrite, true},
		{"in a read-only workspace", "ws/bin/albedo-sandbox", albedo.SandboxReadOnly, false},
		{"in a writable folder of the policy", "user/cache/albedo-sandbox", albedo.SandboxReadOnly, true},
		{"beside the workspace", "bin/albedo-sandbox", albedo.SandboxWorkspaceWrite, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := albedo.SandboxPolicy{Mode: tt.mode, Network: true, Writable: []string{"~/cache"}}
			root := tree(t, "ws/", "user/cache/")
			sb, _ := newTestSandbox(t, 7, policy, filepath.Join(root, tt.helper))
			sb.opts.UserHome = filepath.Join(root, "user")
			_, err := sb.Confine(t.Context(), Start{SessionID: "s1", Workspace: filepath.Join(root, "ws"), Argv: []string{"python3"}})
			if refused := err != nil && strings.Contains(err.Error(), "sandbox helper"); refused != tt.refuse {
				t.Errorf("Confine: %v; want refused %v", err, tt.refuse)
			}
		})
	}
}

// runKernel confines a shell command as a kernel in workspace ws, runs it
// and returns its combined output and error.
func runKernel(t *testing.T, sb *Sandbox, ws, script string) (string, error) {
	t.Helper()
	c, err := sb.Confine(t.Context(), Start{SessionID: "s1", Workspace: ws, Argv: []string{"sh", "-c", script}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = ws, c.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// copyFile copies the program at from to a new executable file to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
