package pykernel

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// wait reaps the kernel, kills what it left in its group, and releases the
// pipes.
func (p *process) wait(cmd *exec.Cmd) {
	_ = cmd.Wait() // the state says how it ended
	killGroup(p.pid)
	p.killJobs()
	p.removeJobsFolder()
	if p.release != nil {
		p.release()
	}
	p.state = cmd.ProcessState
	p.cancel()
	close(p.exited)
	p.log.Info("python kernel exited", "state", p.exitState())
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
	select {
	case <-p.exited:
		return
	default:
	}
	p.killed.Store(true)
	killGroup(p.pid)
	p.killJobs()
}

// stop ends the kernel on purpose and waits until it is gone.
func (p *process) stop(ctx context.Context) error {
	p.stopped.Store(true)
	p.kill()
	select {
	case <-p.exited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the python kernel of session %s to exit: %w", p.sessionID, ctx.Err())
	}
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

// closeAll closes files, ignoring errors.
func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// exitState says how the kernel ended, as os.ProcessState does. The first
// process of a kernel's PID namespace exits with 128 plus the number of
// the signal that ended the kernel (it cannot die of the kernel's signal
// itself): that is told as the signal.
func (p *process) exitState() string {
	code := p.state.ExitCode()
	if p.contained && code > 128 && code < 128+65 {
		return "signal: " + syscall.Signal(code-128).String()
	}
	return p.state.String()
}
