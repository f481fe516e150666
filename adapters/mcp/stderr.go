package mcp

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// stderrWait bounds the wait for the last of a lost server's stderr, which
// a process it started may hold open.
const stderrWait = time.Second

// pipeStderr gives a stdio server a stderr pipe that fills the
// connection's ring, and closes stderrDone when the pipe ends.
func (c *Conn) pipeStderr(cmd *exec.Cmd) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("making the stderr pipe: %w", err)
	}
	cmd.Stderr = w
	c.stderrDone = make(chan struct{})
	c.closeStderr = func() { _ = w.Close() }
	go func() {
		defer close(c.stderrDone)
		defer r.Close()
		_, _ = io.Copy(c.stderr, r)
	}()
	return nil
}

// awaitStderr waits, a moment at most, for a stdio server's stderr to
// end, so that an error about its loss can show the last it wrote.
func (c *Conn) awaitStderr() {
	if c.stderrDone == nil {
		return
	}
	select {
	case <-c.stderrDone:
	case <-time.After(stderrWait):
	}
}
