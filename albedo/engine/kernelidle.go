package engine

import (
	"context"
	"maps"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// reapInterval is how often idle kernels are looked for, given the idle
// time after which they are stopped.
func reapInterval(idle time.Duration) time.Duration {
	return min(max(idle/4, 100*time.Millisecond), 30*time.Second)
}

// reapEvery is how often the reaper looks for idle kernels: zero when
// it need not run, as kernels stay until Close and none is warmed.
func (s *Service) reapEvery() time.Duration {
	_, warms := s.kernel.(albedo.KernelWarmer)
	switch {
	case warms && !s.noWarmup:
		return reapInterval(s.warmIdle)
	case s.kernelIdle > 0:
		return reapInterval(s.kernelIdle)
	}
	return 0
}

// reapIdleKernels stops, every interval until stop closes, the kernels
// of sessions that ran no cell for s.kernelIdle, and those warmed for a
// turn and left unused for s.warmIdle. The session then tells its model,
// with its next message, that its Python globals are gone (when it had
// any).
func (s *Service) reapIdleKernels(stop <-chan struct{}, every time.Duration) {
	t := time.NewTicker(every)
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

// stopIdleKernels stops every kernel idle for longer than s.kernelIdle
// (when set), unless background jobs run in it. A kernel warmed for a
// turn that ran no cell in it is stopped once s.warmIdle passed since it
// was warmed or its last turn ended, and since it held no globals
// nothing is told to the model.
func (s *Service) stopIdleKernels(ctx context.Context) {
	now := s.clock.Now()
	s.mu.Lock()
	states := maps.Clone(s.sessions)
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
		idle := now.Sub(st.lastCell)
		expired := st.run == nil && (st.kernelLive && s.kernelIdle > 0 && idle >= s.kernelIdle || st.kernelWarm && idle >= s.warmIdle)
		st.mu.Unlock()
		if expired && s.kernel.RunningJobs(id) == 0 {
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
