package engine

import (
	"context"
	"time"
)

// reapInterval is how often idle kernels are looked for, given the idle
// time after which they are stopped.
func reapInterval(idle time.Duration) time.Duration {
	return min(max(idle/4, 100*time.Millisecond), 30*time.Second)
}

// reapIdleKernels stops, until stop closes, the kernels of sessions that
// ran no cell for s.kernelIdle. The session then tells its model, with its
// next message, that its Python globals are gone.
func (s *Service) reapIdleKernels(stop <-chan struct{}) {
	t := time.NewTicker(reapInterval(s.kernelIdle))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.stopIdleKernels(context.Background())
		}
	}
}

// stopIdleKernels stops every kernel idle for longer than s.kernelIdle,
// unless background jobs run in it. A kernel warmed for a turn that ran no
// cell in it is stopped alike, and since it held no globals nothing is
// told to the model.
func (s *Service) stopIdleKernels(ctx context.Context) {
	now := s.clock.Now()
	s.mu.Lock()
	states := make(map[string]*sessionState, len(s.sessions))
	for id, st := range s.sessions {
		states[id] = st
	}
	s.mu.Unlock()
	for id, st := range states {
		if st.busy.Load() {
			continue
		}
		// The row's lock keeps a turn from starting while the kernel
		// stops; mu is held only to read and clear what albedo knows. A
		// session whose row is busy (a message waiting on the store) is
		// looked at again at the next tick, so that one slow write never
		// holds up the reaping of the others.
		if !st.row.TryLock() {
			continue
		}
		st.mu.Lock()
		idle := st.run == nil && (st.kernelLive || st.kernelWarm) && now.Sub(st.lastCell) >= s.kernelIdle
		st.mu.Unlock()
		if idle && s.kernel.RunningJobs(id) == 0 {
			if err := s.kernel.Stop(ctx, id); err != nil {
				s.log.Warn("stop idle kernel", "session", id, "err", err)
			}
			st.mu.Lock()
			st.kernelLive, st.kernelWarm = false, false
			st.mu.Unlock()
			s.log.Info("stopped idle kernel", "session", id)
		}
		st.row.Unlock()
	}
}
