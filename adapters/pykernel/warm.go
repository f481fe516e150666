package pykernel

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// background is work Kernels runs on its own: a kernel start ahead of a
// session's first cell (Warm), or the version probe (ProbeVersion).
type background struct {
	// what names the work in errors.
	what   string
	cancel context.CancelFunc
	// done is closed once the work is over (for a warm start: and the
	// session's turn is free again).
	done chan struct{}
}

// end cancels the work, if any, and waits until it is over.
func (b *background) end(ctx context.Context) error {
	if b == nil {
		return nil
	}
	b.cancel()
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s to end: %w", b.what, ctx.Err())
	}
}

// Warm implements albedo.KernelWarmer: it starts the session's kernel in
// workspace in the background unless the session has one, or a cell or
// another warm start holds the session's turn (and so has or makes one).
// The start takes the session's turn before Warm returns, so that a cell
// coming later waits for it and runs in the kernel it made. A failure is
// logged; the next cell then starts its own kernel.
func (k *Kernels) Warm(ctx context.Context, sessionID, workspace string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	s := k.sessionLocked(sessionID)
	if s.proc != nil && !s.proc.gone() {
		return
	}
	select {
	case s.turn <- struct{}{}:
	default:
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &background{what: "a python kernel's start", cancel: cancel, done: make(chan struct{})}
	s.warming = w
	go k.warm(ctx, s, w, workspace)
}

// warm starts the session's kernel for Warm, which took the session's
// turn for it.
func (k *Kernels) warm(ctx context.Context, s *session, w *background, workspace string) {
	defer close(w.done)
	defer func() {
		k.mu.Lock()
		s.warming = nil
		k.mu.Unlock()
		w.cancel()
	}()
	defer func() { <-s.turn }()
	if ctx.Err() != nil {
		return
	}
	if _, err := k.kernel(ctx, s, workspace); err != nil && ctx.Err() == nil {
		k.opts.Logger.Warn("warming the python kernel; the first cell starts it", "session", s.id, "err", err)
	}
}

var _ albedo.KernelWarmer = (*Kernels)(nil)
