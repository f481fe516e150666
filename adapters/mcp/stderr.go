package mcp

import (
	"fmt"
	"io"
	"os"
	"time"
)

// stderrWait bounds the wait for the last of a lost server's stderr, which
// a process it started may hold open.
const stderrWait = time.Second

// pipeStderr gives a stdio server a stderr pipe that fills the
// connection's ring, and the server's log file in logDir when it is not
// empty, and closes stderrDone when the pipe ends.
func (c *Conn) pipeStderr(logDir string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("making the stderr pipe: %w", err)
	}
	c.stderrW = w
	c.stderrDone = make(chan struct{})
	var sink io.Writer = c.stderr
	var file *os.File
	if logDir != "" {
		if file, err = openLog(logDir, c.cfg.Name); err != nil {
			c.log.Warn("mcp server log not kept", "err", err)
		} else {
			sink = io.MultiWriter(c.stderr, file)
		}
	}
	go func() {
		defer close(c.stderrDone)
		defer r.Close()
		_, _ = io.Copy(sink, r)
		if file != nil {
			_ = file.Close()
		}
	}()
	return nil
}

// closeStderr closes the daemon's copy of the stderr pipe's writing end.
func (c *Conn) closeStderr() {
	if c.stderrW != nil {
		_ = c.stderrW.Close()
		c.stderrW = nil
	}
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
