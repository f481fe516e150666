package landlock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// Options configure a Sandbox.
type Options struct {
	// Helper is the command that runs HelperMain: albedo's binary and
	// HelperCommand, or a program of its own. New holds the program as it
	// is then (see holdProgram), and every kernel starts through that
	// copy; one that cannot be held is refused wherever a kernel may write
	// it. Empty means kernels cannot be confined: they run unconfined, and
	// the status says nothing is enforced.
	Helper []string
	// Policy reads the policy in force and the problems of its settings;
	// it is called for every kernel start and every status. Nil means
	// albedo.DefaultSandboxPolicy.
	Policy func(ctx context.Context) (albedo.SandboxPolicy, []string)
	// Home is albedo's home, which is always hidden.
	Home string
	// UserHome is where paths starting with "~/" point; $HOME when empty.
	UserHome string
	// ABI tells the Landlock ABI of the machine; KernelABI when nil. Tests
	// inject older ABIs, or none.
	ABI func() int
	// TempRoot holds the kernels' temporary folders; os.TempDir() when
	// empty.
	TempRoot string
}

// Sandbox confines kernels as the policy in force says, and remembers
// what each session's kernel runs under. It implements albedo.Sandbox and
// is safe for concurrent use.
type Sandbox struct {
	opts   Options
	helper heldHelper

	mu sync.Mutex
	// sessions holds the status of each session's last kernel start, and
	// the start it belongs to.
	sessions map[string]started
	starts   int64
}

var _ albedo.Sandbox = (*Sandbox)(nil)

// started is the status of one kernel start.
type started struct {
	status albedo.SandboxStatus
	start  int64
}

// Start is a kernel about to start: its session, its workspace, and the
// command line and environment it would run with unconfined.
type Start struct {
	SessionID, Workspace string
	Argv, Env            []string
	// Own are folders the kernel itself writes (its spool): writable
	// whatever the mode, even inside a hidden path.
	Own []string
	// Policy, when set, is the policy of this start instead of the one
	// in force (an MCP server's own); albedo's home stays hidden.
	Policy *albedo.SandboxPolicy
}

// Confined is how to start a kernel confined.
type Confined struct {
	Argv, Env []string
	// Status is what the kernel runs under.
	Status albedo.SandboxStatus
	// Release is to be called once the kernel has exited: it removes the
	// kernel's temporary folder.
	Release func()
	// PIDNamespace says Argv starts with the helper, which, started as
	// the first process of a PID namespace of its own, runs the kernel in
	// it and ends everything the kernel started when the kernel ends (see
	// superviseNamespace): the caller should start it in one.
	PIDNamespace bool
}

// New returns a Sandbox configured by opts.
func New(opts Options) *Sandbox {
	if opts.Policy == nil {
		opts.Policy = func(context.Context) (albedo.SandboxPolicy, []string) { return albedo.DefaultSandboxPolicy(), nil }
	}
	if opts.ABI == nil {
		opts.ABI = KernelABI
	}
	if opts.UserHome == "" {
		opts.UserHome, _ = os.UserHomeDir()
	}
	if opts.TempRoot == "" {
		opts.TempRoot = os.TempDir()
	}
	return &Sandbox{opts: opts, helper: holdHelper(opts.Helper), sessions: make(map[string]started)}
}

// Close lets the held helper go; no kernel may start after it.
func (s *Sandbox) Close() error {
	if s.helper.release == nil {
		return nil
	}
	if err := s.helper.release(); err != nil {
		return fmt.Errorf("letting the sandbox helper go: %w", err)
	}
	return nil
}

// Confine returns the command line and environment that start a kernel
// under the policy in force: through the helper, with a TMPDIR of its own.
// When the policy is required and the machine cannot enforce all of it,
// it returns an error and nothing may run.
func (s *Sandbox) Confine(ctx context.Context, k Start) (Confined, error) {
	st, abi := s.assessPolicy(ctx, k.Policy)
	if st.Policy.Mode == albedo.SandboxOff {
		// Nothing is confined, but the helper still ends what the kernel
		// leaves running when it ends.
		st.Running = true
		start := s.record(k.SessionID, st)
		off := Confined{Argv: k.Argv, Env: k.Env, Status: st, Release: func() { s.release(k.SessionID, start) }}
		if len(s.opts.Helper) > 0 {
			off.Argv = s.helperArgv(Spec{Network: true, Off: true}, k.Argv)
			off.PIDNamespace = true
		}
		return off, nil
	}
	if st.Policy.Required && len(missingOf(st)) > 0 {
		return Confined{}, fmt.Errorf("the sandbox is required (extensions.json sandbox.required) but this machine (Landlock ABI %d) cannot enforce %s; no cell runs until it can or sandbox.required is false",
			abi, strings.Join(missingOf(st), ", "))
	}
	if err := s.helper.check(append(s.writable(st.Policy, realPath(k.Workspace), ""), realPaths(k.Own)...)); err != nil {
		return Confined{}, err
	}
	tmp, err := os.MkdirTemp(s.opts.TempRoot, "albedo-kernel-")
	if err != nil {
		return Confined{}, fmt.Errorf("making the kernel's temporary folder: %w", err)
	}
	tmp = realPath(tmp)
	st.Writable = s.writable(st.Policy, realPath(k.Workspace), tmp)
	st.Running = true
	for _, own := range k.Own {
		st.Writable = append(st.Writable, realPath(own))
	}
	spec := Spec{ABI: abi, Network: st.Policy.Network, Required: st.Policy.Required, Writable: st.Writable, Own: realPaths(k.Own), Hidden: st.Hidden, Temp: tmp,
		TempMiB: st.Policy.Limits.TempMiB, Processes: st.Policy.Limits.Processes, MemoryMiB: st.Policy.Limits.MemoryMiB}
	argv := s.helperArgv(spec, k.Argv)
	if len(s.opts.Helper) == 0 {
		argv = k.Argv
	}
	start := s.record(k.SessionID, st)
	return Confined{
		Argv:   argv,
		Env:    withTemp(k.Env, tmp),
		Status: st,
		Release: func() {
			_ = os.RemoveAll(tmp)
			s.release(k.SessionID, start)
		},
		PIDNamespace: len(s.opts.Helper) > 0,
	}, nil
}

// helperArgv returns the command line that runs argv through the helper
// confined as spec says, as the daemon's user and group.
func (s *Sandbox) helperArgv(spec Spec, argv []string) []string {
	spec.UID, spec.GID = os.Geteuid(), os.Getegid()
	return append(append(append([]string{}, s.helper.argv...), spec.encode(), "--"), argv...)
}

// Status says what a kernel started now would run under.
func (s *Sandbox) Status(ctx context.Context) albedo.SandboxStatus {
	st, _ := s.assessPolicy(ctx, nil)
	return st
}

// Session says what the session's last kernel runs (or ran) under, and
// false when none started.
func (s *Sandbox) Session(_ context.Context, sessionID string) (albedo.SandboxStatus, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	got, ok := s.sessions[sessionID]
	return got.status, ok
}

// assessPolicy reads the given policy, or the one in force when it is
// nil, and says what of it this machine enforces, with the ABI the helper
// is to use.
func (s *Sandbox) assessPolicy(ctx context.Context, given *albedo.SandboxPolicy) (albedo.SandboxStatus, int) {
	var policy albedo.SandboxPolicy
	var problems []string
	if given != nil {
		policy = *given
	} else {
		policy, problems = s.opts.Policy(ctx)
	}
	abi := s.opts.ABI()
	if len(s.opts.Helper) == 0 && policy.Mode != albedo.SandboxOff {
		abi = 0
		problems = append(problems, "this program has no sandbox helper, so kernels run unconfined")
	}
	st := albedo.SandboxStatus{Policy: policy, Problems: problems, Hidden: []string{}, Writable: []string{}}
	st.Enforced, st.NotEnforced, _ = assess(policy, abi)
	if policy.Mode != albedo.SandboxOff {
		st.Hidden = s.hidden(policy)
		st.Writable = s.writable(policy, "", "")
	}
	return st, abi
}

// missingOf lists the protections of a status that some Landlock ABI
// would enforce but this machine's does not.
func missingOf(st albedo.SandboxStatus) []string {
	var missing []string
	for _, name := range st.NotEnforced {
		for _, pr := range protections {
			if pr.name == name && pr.abi > 0 {
				missing = append(missing, name)
			}
		}
	}
	return missing
}

// hidden returns the resolved hidden paths, albedo's home, the default
// credentials and the policy's own, those that do not exist yet included:
// Landlock then grants the folder that would hold one entry by entry, so
// that it cannot be opened once it appears.
func (s *Sandbox) hidden(p albedo.SandboxPolicy) []string {
	var out []string
	var names []string
	if s.opts.Home != "" {
		names = append(names, s.opts.Home)
	}
	names = append(append(names, albedo.DefaultHiddenPaths...), p.Hidden...)
	for _, name := range names {
		path := s.expand(name)
		if path == "" {
			continue
		}
		if real := realPath(path); !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// writable returns the folders a kernel may write: the workspace (unless
// read-only, or unknown yet), its temporary folder (when known) and the
// policy's writable folders.
func (s *Sandbox) writable(p albedo.SandboxPolicy, workspace, tmp string) []string {
	out := []string{}
	if workspace != "" && p.Mode == albedo.SandboxWorkspaceWrite {
		out = append(out, workspace)
	}
	if tmp != "" {
		out = append(out, tmp)
	}
	for _, w := range p.Writable {
		if path := s.expand(w); path != "" && !slices.Contains(out, realPath(path)) {
			out = append(out, realPath(path))
		}
	}
	return out
}

// expand makes a policy path absolute, "~/" meaning the user's home; ""
// when it names the home and there is none.
func (s *Sandbox) expand(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if s.opts.UserHome == "" {
			return ""
		}
		return filepath.Join(s.opts.UserHome, rest)
	}
	return filepath.Clean(path)
}

// record remembers the status of a session's new kernel start.
func (s *Sandbox) record(sessionID string, st albedo.SandboxStatus) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts++
	s.sessions[sessionID] = started{status: st, start: s.starts}
	return s.starts
}

// release records that a kernel start has ended, unless a later one took
// its place.
func (s *Sandbox) release(sessionID string, start int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, ok := s.sessions[sessionID]; ok && got.start == start {
		got.status.Running = false
		s.sessions[sessionID] = got
	}
}

// withTemp returns env with TMPDIR, TMP and TEMP naming dir.
func withTemp(env []string, dir string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != "TMPDIR" && name != "TMP" && name != "TEMP" {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+dir, "TMP="+dir, "TEMP="+dir)
}

// realPaths resolves each path of a list.
func realPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = realPath(p)
	}
	return out
}
