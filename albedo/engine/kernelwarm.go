package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// warmKernel starts the session's kernel in the background at a turn's
// first step, before the project files are read and the model is asked,
// so that the turn's first cell does not wait for the interpreter: once
// per turn, and only when the session has no kernel albedo knows of
// (no cell ran since the last restart, and none was warmed since). The
// start is the kernel's to do and to log; it outlives an interrupt of the
// turn, and the warmed kernel is then the session's like any other: the
// idle reaper stops it when no cell came WarmKernelIdle after the turn
// ended, and a workspace move, a delete or Close stop it. Nothing of it
// reaches the transcript.
func (s *Service) warmKernel(ctx context.Context, st *sessionState, sess albedo.Session) {
	w, ok := s.kernel.(albedo.KernelWarmer)
	if !ok || s.noWarmup {
		return
	}
	st.mu.Lock()
	warm := !st.kernelLive && !st.kernelWarm
	if warm {
		st.kernelWarm = true
		st.lastCell = s.clock.Now()
	}
	st.mu.Unlock()
	if warm {
		w.Warm(context.WithoutCancel(ctx), sess.ID, sess.Workspace)
	}
}
