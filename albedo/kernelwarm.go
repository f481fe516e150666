package albedo

import "context"

// warmKernel starts the session's kernel in the background as a turn
// begins, so that the turn's first cell does not wait for the interpreter:
// once per turn, and only when the session has no kernel albedo knows of
// (no cell ran since the last restart, and none was warmed since). The
// start is the kernel's to do and to log; it outlives an interrupt of the
// turn, and the warmed kernel is then the session's like any other: the
// idle reaper stops it when no cell comes, and a workspace move, a delete
// or Close stop it. Nothing of it reaches the transcript.
func (s *Service) warmKernel(ctx context.Context, st *sessionState, id string) {
	w, ok := s.kernel.(KernelWarmer)
	if !ok || s.noWarmup {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.kernelLive || st.kernelWarm {
		return
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return // the turn's first step reports it
	}
	w.Warm(context.WithoutCancel(ctx), id, sess.Workspace)
	st.kernelWarm = true
	st.lastCell = s.clock.Now()
}
