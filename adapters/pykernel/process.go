package pykernel

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
	host      hostFunc

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

	// ctx is cancelled when the process exits; host calls made between
	// cells run under it.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	cell    *cellState
	nextID  int64
	stopped bool // ended on purpose: Stop, Close or the idle timer
	idle    *time.Timer
}

// hostFunc is the type of Options.Host.
type hostFunc = func(ctx context.Context, sessionID, name string, args json.RawMessage) (json.RawMessage, error)

// start starts a kernel for a session in workspace and waits until it is
// ready for cells.
func start(ctx context.Context, o *Options, sessionID, workspace string) (*process, error) {
	python, err := lookPython(o.Python)
	if err != nil {
		return nil, err
	}
	var pipes [6]*os.File // ctlR, ctlW, evR, evW, outR, outW
	for i := 0; i < len(pipes); i += 2 {
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			closeAll(pipes[:i]...)
			return nil, fmt.Errorf("making pipes for the python kernel: %w", err)
		}
	}
	ctlR, ctlW, evR, evW, outR, outW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]

	cmd := exec.Command(python, "-c", bootstrap)
	cmd.Dir = workspace
	cmd.Env = kernelEnv(o.Env)
	cmd.Stdout, cmd.Stderr = outW, outW
	cmd.ExtraFiles = []*os.File{ctlR, evW}
	cmd.SysProcAttr = groupAttr()
	began := time.Now()
	err = cmd.Start()
	closeAll(ctlR, evW, outW) // the kernel holds its own copies now
	if err != nil {
		closeAll(ctlW, evR, outR)
		return nil, fmt.Errorf("starting %s in %s: %w", python, workspace, err)
	}

	p := &process{
		sessionID:  sessionID,
		pid:        cmd.Process.Pid,
		log:        o.Logger.With("session", sessionID, "pid", cmd.Process.Pid),
		host:       o.Host,
		ctl:        ctlW,
		events:     evR,
		out:        outR,
		ready:      make(chan event, 1),
		exited:     make(chan struct{}),
		eventsDone: make(chan struct{}),
		outputDone: make(chan struct{}),
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	// Collect what the kernel prints while starting, for the error if it
	// fails; nobody writes this marker.
	p.output.begin(newMarker(), startupOutputLimit)
	go p.wait(cmd)
	go p.readEvents()
	go p.readOutput()

	if err := p.write(programFrame()); err != nil {
		p.kill()
		<-p.exited
		return nil, fmt.Errorf("sending the program to the python kernel: %w", err)
	}
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case ev := <-p.ready:
		if text := p.output.end(); text != "" {
			p.log.Debug("python kernel said while starting", "output", text)
		}
		p.log.Info("python kernel started", "python", ev.Python, "executable", ev.Executable,
			"workspace", workspace, "duration", time.Since(began))
		return p, nil
	case <-p.exited:
		p.drain()
		text := strings.TrimSpace(p.output.end())
		if text != "" {
			text = ": " + text
		}
		return nil, fmt.Errorf("the python kernel (%s) exited while starting, %s%s", python, p.state, text)
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
		return "", &missingPython{msg: fmt.Sprintf("%s not found%s; albedo needs Python 3.9 or newer for its python tool", name, where), err: err}
	}
	return "", fmt.Errorf("finding the python interpreter %s: %w", name, err)
}

// missingPython reports an interpreter that is not installed.
type missingPython struct {
	msg string
	err error
}

func (e *missingPython) Error() string { return e.msg }
func (e *missingPython) Unwrap() error { return e.err }

// newMarker returns a string that a cell's output will not contain by
// chance.
func newMarker() string {
	return "\x00albedo-cell-end:" + rand.Text() + "\x00"
}

// wait reaps the kernel, kills what it left in its group, and releases the
// pipes.
func (p *process) wait(cmd *exec.Cmd) {
	_ = cmd.Wait() // the state says how it ended
	killGroup(p.pid)
	p.state = cmd.ProcessState
	p.cancel()
	p.stopIdle()
	close(p.exited)
	p.log.Info("python kernel exited", "state", p.state.String())
	_ = p.ctl.Close()
	// A process that left the group may still hold the pipes' other ends:
	// give them a moment to deliver, then cut them.
	timer := time.NewTimer(drainTimeout)
	defer timer.Stop()
	for _, done := range []chan struct{}{p.eventsDone, p.outputDone} {
		select {
		case <-done:
		case <-timer.C:
		}
	}
	closeAll(p.events, p.out)
}

// drain waits, briefly, for the output pipe to end after the kernel exited.
func (p *process) drain() {
	select {
	case <-p.outputDone:
	case <-time.After(drainTimeout):
	}
}

// readEvents reads the kernel's events until its fd 4 closes.
func (p *process) readEvents() {
	defer close(p.eventsDone)
	r := bufio.NewReaderSize(p.events, 64<<10)
	for {
		body, err := readFrame(r)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !p.gone() {
				p.log.Warn("reading python kernel events", "err", err)
				p.kill()
			}
			return
		}
		var ev event
		if err := json.Unmarshal(body, &ev); err != nil {
			p.log.Warn("decoding a python kernel event", "err", err)
			p.kill()
			return
		}
		switch ev.Type {
		case "ready":
			select {
			case p.ready <- ev:
			default:
			}
		case "call":
			go p.answer(ev)
		case "done":
			p.deliver(ev)
		default:
			p.log.Warn("unknown python kernel event", "type", ev.Type)
		}
	}
}

// readOutput feeds the kernel's stdout and stderr to the capture.
func (p *process) readOutput() {
	defer close(p.outputDone)
	buf := make([]byte, 256<<10)
	for {
		n, err := p.out.Read(buf)
		if n > 0 {
			p.output.write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// send writes one request to the kernel.
func (p *process) send(req request) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encoding a %s request: %w", req.Type, err)
	}
	return p.write(body)
}

// write writes one frame to the kernel.
func (p *process) write(body []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_ = p.ctl.SetWriteDeadline(time.Now().Add(writeTimeout))
	return writeFrame(p.ctl, body)
}

// interrupt asks the kernel to stop its cell.
func (p *process) interrupt() {
	if p.gone() {
		return
	}
	if err := interruptMain(p.pid); err != nil {
		p.log.Warn("interrupting the python kernel", "err", err)
	}
}

// kill ends the kernel and its process group at once.
func (p *process) kill() {
	p.stopIdle()
	select {
	case <-p.exited:
		return
	default:
	}
	p.killed.Store(true)
	killGroup(p.pid)
}

// stop ends the kernel on purpose and waits until it is gone.
func (p *process) stop(ctx context.Context) error {
	p.markStopped()
	p.kill()
	select {
	case <-p.exited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the python kernel of session %s to exit: %w", p.sessionID, ctx.Err())
	}
}

// markStopped records that the kernel is being ended on purpose.
func (p *process) markStopped() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
}

// gone reports whether the kernel was killed or has exited.
func (p *process) gone() bool {
	if p.killed.Load() {
		return true
	}
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// stoppedOnPurpose reports whether Stop, Close or the idle timer ended the
// kernel.
func (p *process) stoppedOnPurpose() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

// armIdle (re)starts the idle timer, which calls f after d.
func (p *process) armIdle(d time.Duration, f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle == nil {
		p.idle = time.AfterFunc(d, f)
		return
	}
	p.idle.Reset(d)
}

// stopIdle stops the idle timer.
func (p *process) stopIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle != nil {
		p.idle.Stop()
	}
}

// closeAll closes files, ignoring errors.
func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
