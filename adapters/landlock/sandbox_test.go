package landlock

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// newTestSandbox returns a sandbox for a machine of the given ABI, with
// the policy policy, a home, a user home and a temporary root of its own.
func newTestSandbox(t *testing.T, abi int, policy albedo.SandboxPolicy, helper ...string) (*Sandbox, string) {
	t.Helper()
	root := tree(t, "albedo/config.json", "user/.ssh/id_test", "user/.aws/", "tmp/", "ws/")
	sb := New(Options{
		Helper:   helper,
		Policy:   func(context.Context) (albedo.SandboxPolicy, []string) { return policy, nil },
		Home:     filepath.Join(root, "albedo"),
		UserHome: filepath.Join(root, "user"),
		ABI:      func() int { return abi },
		TempRoot: filepath.Join(root, "tmp"),
	})
	return sb, root
}

func TestConfineRunsTheKernelThroughTheHelper(t *testing.T) {
	policy := albedo.SandboxPolicy{Mode: albedo.SandboxWorkspaceWrite, Network: false, Writable: []string{"~/cache"}, Hidden: []string{"~/.aws"}}
	sb, root := newTestSandbox(t, 7, policy, "/bin/albedo", HelperCommand)
	ws := filepath.Join(root, "ws")
	c, err := sb.Confine(t.Context(), Start{SessionID: "s1", Workspace: ws, Argv: []string{"/usr/bin/python3", "-c", "code"}, Env: []string{"PATH=/bin", "TMPDIR=/tmp"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Argv) != 7 || c.Argv[0] != "/bin/albedo" || c.Argv[1] != HelperCommand || c.Argv[3] != "--" || !slices.Equal(c.Argv[4:], []string{"/usr/bin/python3", "-c", "code"}) {
		t.Fatalf("argv = %q", c.Argv)
	}
	spec, err := decodeSpec(c.Argv[2])
	if err != nil {
		t.Fatal(err)
	}
	tmp := c.Status.Writable[1]
	// Every hidden path is listed, those that do not exist yet included
	// (only ~/.ssh does), the policy's ~/.aws once.
	hidden := []string{filepath.Join(root, "albedo")}
	for _, h := range albedo.DefaultHiddenPaths {
		hidden = append(hidden, filepath.Join(root, "user", strings.TrimPrefix(h, "~/")))
	}
	want := Spec{
		ABI: 7, Network: false,
		Writable: []string{ws, tmp, filepath.Join(root, "user", "cache")},
		Hidden:   hidden,
		Temp:     tmp,
	}
	if !slices.Equal(spec.Writable, want.Writable) || !slices.Equal(spec.Hidden, want.Hidden) || spec.ABI != 7 || spec.Network || spec.Temp != want.Temp {
		t.Errorf("spec = %+v, want %+v", spec, want)
	}
	if filepath.Dir(tmp) != filepath.Join(root, "tmp") {
		t.Errorf("the kernel's TMPDIR %s is not under the temporary root", tmp)
	}
	if !slices.Contains(c.Env, "TMPDIR="+tmp) || slices.Contains(c.Env, "TMPDIR=/tmp") || !slices.Contains(c.Env, "PATH=/bin") {
		t.Errorf("env = %q", c.Env)
	}
	if st, ok := sb.Session(t.Context(), "s1"); !ok || !st.Running || !slices.Equal(st.NotEnforced, []string{"unix_sockets", "udp", "mptcp"}) {
		t.Errorf("session status = %+v, %v", st, ok)
	}
	c.Release()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the kernel's TMPDIR is still there after release: %v", err)
	}
	if st, _ := sb.Session(t.Context(), "s1"); st.Running {
		t.Error("the session's kernel still runs after release")
	}
}

func TestConfineReadOnlyWritesOnlyTheTemporaryFolder(t *testing.T) {
	sb, root := newTestSandbox(t, 7, albedo.SandboxPolicy{Mode: albedo.SandboxReadOnly, Network: true}, "albedo", HelperCommand)
	c, err := sb.Confine(t.Context(), Start{SessionID: "s", Workspace: filepath.Join(root, "ws"), Argv: []string{"python3"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if len(c.Status.Writable) != 1 || filepath.Dir(c.Status.Writable[0]) != filepath.Join(root, "tmp") {
		t.Errorf("writable = %q, want the temporary folder alone", c.Status.Writable)
	}
}

// TestConfineOffRunsTheKernelUnconfined: mode off restricts nothing but
// still starts the kernel through the helper, in a PID namespace whose end
// ends everything the kernel started.
func TestConfineOffRunsTheKernelUnconfined(t *testing.T) {
	sb, root := newTestSandbox(t, 7, albedo.SandboxPolicy{Mode: albedo.SandboxOff}, "albedo", HelperCommand)
	start := Start{SessionID: "s", Workspace: filepath.Join(root, "ws"), Argv: []string{"python3", "-c", "x"}, Env: []string{"TMPDIR=/tmp"}}
	c, err := sb.Confine(t.Context(), start)
	if err != nil {
		t.Fatal(err)
	}
	c.Release()
	want := append([]string{"albedo", HelperCommand, Spec{Network: true, Off: true, UID: os.Geteuid(), GID: os.Getegid()}.encode(), "--"}, start.Argv...)
	if !slices.Equal(c.Argv, want) || !slices.Equal(c.Env, start.Env) || !c.PIDNamespace || len(c.Status.Enforced)+len(c.Status.NotEnforced) != 0 {
		t.Errorf("confined = %+v, want argv %q", c, want)
	}
}

func TestConfineWithoutLandlock(t *testing.T) {
	tests := []struct {
		name     string
		required bool
		helper   []string
		refused  bool
		problem  string
	}{
		{name: "runs with what it can", helper: []string{"albedo", HelperCommand}},
		{name: "required refuses", required: true, helper: []string{"albedo", HelperCommand}, refused: true},
		{name: "no helper runs unconfined and says so", problem: "no sandbox helper"},
		{name: "no helper and required refuses", required: true, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := albedo.DefaultSandboxPolicy()
			policy.Required = tt.required
			sb, root := newTestSandbox(t, 0, policy, tt.helper...)
			c, err := sb.Confine(t.Context(), Start{SessionID: "s", Workspace: filepath.Join(root, "ws"), Argv: []string{"python3"}})
			if tt.refused {
				if err == nil || !strings.Contains(err.Error(), "sandbox is required") || !strings.Contains(err.Error(), "filesystem_writes") {
					t.Errorf("err = %v, want a refusal naming what is missing", err)
				}
				if entries, _ := os.ReadDir(filepath.Join(root, "tmp")); len(entries) != 0 {
					t.Errorf("a refused start left %d temporary folders", len(entries))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			if len(c.Status.Enforced) != 0 || !slices.Contains(c.Status.NotEnforced, "hidden_reads") {
				t.Errorf("status = %+v, want nothing enforced", c.Status)
			}
			if tt.problem != "" && !strings.Contains(strings.Join(c.Status.Problems, " "), tt.problem) {
				t.Errorf("problems = %q, want one saying %q", c.Status.Problems, tt.problem)
			}
			if tt.helper == nil && !slices.Equal(c.Argv, []string{"python3"}) {
				t.Errorf("argv = %q, want the kernel as is", c.Argv)
			}
		})
	}
}

func TestStatusBeforeAnyKernel(t *testing.T) {
	sb, root := newTestSandbox(t, 7, albedo.DefaultSandboxPolicy(), "albedo", HelperCommand)
	st := sb.Status(t.Context())
	if st.Running || len(st.Writable) != 0 || !slices.Contains(st.Hidden, filepath.Join(root, "albedo")) || len(st.NotEnforced) != 0 {
		t.Errorf("status = %+v", st)
	}
	if _, ok := sb.Session(t.Context(), "never"); ok {
		t.Error("a session that started no kernel has a status")
	}
}
