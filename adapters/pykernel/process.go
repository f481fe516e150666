package pykernel

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/albedo-agent/albedo/adapters/landlock"
	"github.com/albedo-agent/albedo/albedo"
)

const (
	// startTimeout bounds a kernel's start, which a cold disk or a version
	// manager's shim can make slow.
	startTimeout = 60 * time.Second
	// writeTimeout bounds one frame's write to a kernel that reads nothing.
	writeTimeout = 30 * time.Second
	// drainTimeout bounds the wait for a pipe to deliver its last bytes.
	drainTimeout = time.Second
	// startupOutputLimit caps what a kernel printing while it starts keeps
	// for the error that reports a failed start.
	startupOutputLimit = 4 << 10
)

// process is one running kernel: a python3 process leading its own process
// group, and the pipes to it.
type process struct {
	sessionID string
	pid       int
	log       *slog.Logger
	onJob     func(sessionID string, end albedo.JobEnd)
	// executable is the interpreter the kernel reported running as, once
	// it is ready: the real one behind a version manager's shim.
	executable string
	// contained says the kernel runs in a PID namespace of its own, led
	// by the process pid: everything it started ends with that process,
	// and the pids its events name are the namespace's, not the daemon's.
	contained bool
	// confinedTo is the workspace a confined kernel may write in, "" for
	// a kernel that Options.Confine did not wrap.
	confinedTo string
	// release is Launch.Release, called once the process has exited.
	release func()
	// version is the Python version the kernel reported, such as "3.12.3".
	version string
	// workspace is the folder the kernel started in.
	workspace string
	// jobsFolder holds the spools of the kernel's jobs (see jobsFolder).
	jobsFolder string
	// tookCell says a cell was given to the kernel; a kernel warmed ahead
	// of its first cell has none. Guarded by the session's turn.
	tookCell bool

	ctl    *os.File // the kernel's fd 3: requests
	wmu    sync.Mutex
	events *os.File // the kernel's fd 4: events
	out    *os.File // the kernel's stdout and stderr
	output capture

	ready      chan event
	exited     chan struct{} // closed once the process has been reaped
	state      *os.ProcessState
	eventsDone chan struct{}
	outputDone chan struct{}
	killed     atomic.Bool
	// stopped says the kernel is being ended on purpose: Stop or Close.
	stopped atomic.Bool

	// ctx is cancelled when the process exits; host calls made between
	// cells run under it.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	cell   *cellState
	nextID int64
	jobs   jobState
	// host answers host calls: the Host of the latest cell, kept for calls
	// made between cells.
	host hostFunc
	// offered is the JSON of the host calls last declared to the kernel.
	offered string
}

// hostFunc is the type of albedo.Cell.Host.
type hostFunc = func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)

// start starts a kernel for a session in workspace with the interpreter
// named python and waits until it is ready for cells.
func start(ctx context.Context, o *Options, python, sessionID, workspace string) (*process, error) {
	python, err := lookPython(python)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	p, err := spawn(ctx, o, python, sessionID, workspace)
	if err != nil {
		return nil, err
	}
	if err := p.write(programFrame(p.jobsFolder)); err != nil {
		p.kill()
		return nil, p.failedStart(python)
	}
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case ev := <-p.ready:
		if text := p.output.end(); text != "" {
			p.log.Debug("python kernel wrote while starting", "output", text)
		}
		p.log.Info("python kernel started", "python", ev.Python, "executable", ev.Executable,
			"workspace", workspace, "pid_namespace", p.contained, "duration", time.Since(began))
		p.executable, p.version = ev.Executable, ev.Python
		return p, nil
	case <-p.exited:
		return nil, p.failedStart(python)
	case <-ctx.Done():
		p.kill()
		<-p.exited
		return nil, ctx.Err()
	case <-timer.C:
		p.kill()
		<-p.exited
		return nil, fmt.Errorf("the python kernel (%s) did not start within %s", python, startTimeout)
	}
}

// spawn starts the interpreter with its pipes and the goroutines that
// serve them.
func spawn(ctx context.Context, o *Options, python, sessionID, workspace string) (*process, error) {
	launch := Launch{SessionID: sessionID, Workspace: workspace, Argv: []string{python, "-c", bootstrap}, Env: kernelEnv(o.Env)}
	if o.Confine != nil {
		confined, err := o.Confine(ctx, launch)
		if err != nil {
			return nil, err
		}
		launch = confined
	}
	var pipes [6]*os.File // ctlR, ctlW, evR, evW, outR, outW
	var err error
	for i := 0; i < len(pipes); i += 2 {
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			closeAll(pipes[:i]...)
			return nil, fmt.Errorf("making pipes for the python kernel: %w", err)
		}
	}
	ctlR, ctlW, evR, evW, outR, outW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]

	// A launch that asks for it runs in a PID namespace of its own, the
	// first way the machine allows; one that allows none runs without.
	attrs := []*syscall.SysProcAttr{groupAttr()}
	if launch.PIDNamespace {
		attrs = append(landlock.NamespaceAttrs(attrs[0]), attrs...)
	}
	var cmd *exec.Cmd
	for _, attr := range attrs {
		cmd = exec.Command(launch.Argv[0], launch.Argv[1:]...)
		cmd.Dir = workspace
		cmd.Env = launch.Env
		cmd.Stdout, cmd.Stderr = outW, outW
		cmd.ExtraFiles = []*os.File{ctlR, evW} // fds 3 and 4
		cmd.SysProcAttr = attr
		if err = cmd.Start(); err == nil {
			break
		}
	}
	closeAll(ctlR, evW, outW) // the kernel holds its own copies now
	if err != nil {
		closeAll(ctlW, evR, outR)
		if launch.Release != nil {
			launch.Release()
		}
		return nil, fmt.Errorf("starting %s in %s: %w", python, workspace, err)
	}

	p := &process{
		sessionID:  sessionID,
		workspace:  workspace,
		jobsFolder: jobsFolder(launch.Env, cmd.Process.Pid),
		pid:        cmd.Process.Pid,
		contained:  inNamespace(cmd.SysProcAttr),
		log:        o.Logger.With("session", sessionID, "pid", cmd.Process.Pid),
		release:    launch.Release,
		onJob:      o.OnJobEnd,
		ctl:        ctlW,
		events:     evR,
		out:        outR,
		ready:      make(chan event, 1),
		exited:     make(chan struct{}),
		eventsDone: make(chan struct{}),
		outputDone: make(chan struct{}),
	}
	if o.Confine != nil {
		p.confinedTo = workspace
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	// Collect what the kernel writes while starting, for the error if it
	// fails; nobody writes this marker.
	p.output.begin(newMarker(), startupOutputLimit, false)
	go p.wait(cmd)
	go p.readEvents()
	go p.readOutput()
	return p, nil
}

// failedStart waits for a kernel that failed to start to exit, and returns
// an error with what it wrote.
func (p *process) failedStart(python string) error {
	<-p.exited
	p.drain()
	text := strings.TrimSpace(p.output.end())
	if text != "" {
		text = ": " + text
	}
	return fmt.Errorf("the python kernel (%s) exited while starting, %s%s", python, p.exitState(), text)
}

// lookPython resolves the interpreter's name to a path.
func lookPython(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err == nil {
		return path, nil
	}
	if errors.Is(err, exec.ErrNotFound) {
		where := " on PATH"
		if strings.ContainsRune(name, os.PathSeparator) {
			where = ""
		}
		return "", fmt.Errorf("%s not found%s; albedo needs Python 3.9 or newer for its python tool", name, where)
	}
	return "", fmt.Errorf("finding the python interpreter %s: %w", name, err)
}

// newMarker returns a string that a cell's output will not contain by
// chance.
func newMarker() string {
	return "\x00albedo-cell-end:" + rand.Text() + "\x00"
}
