package engine

import (
	"context"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// run is what a session runs as a turn, a turn or a /compact, seen from
// outside it: Interrupt and Close cancel it, Wait waits for it to be done.
type run struct {
	cancel context.CancelCauseFunc
	done   chan struct{}

	mu sync.Mutex
	// storing counts the calls of the store the run is inside of.
	storing int
}

// inStore marks the run as waiting on the store until the returned
// function is called.
func (r *run) inStore() (out func()) {
	r.mu.Lock()
	r.storing++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.storing--
		r.mu.Unlock()
	}
}

// interrupt cancels the run and reports whether it was waiting on the
// store then: its end is recorded once the store lets it.
func (r *run) interrupt() (waitingOnStore bool) {
	r.cancel(context.Canceled)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.storing > 0
}

// startRun runs what a session does as a turn in the background: the
// session is busy, subscribers hear it run, an interrupt or Close cancels
// ctx, and Close waits for it. The caller holds st.row.
func (s *Service) startRun(st *sessionState, do func(ctx context.Context, r *run)) {
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &run{cancel: cancel, done: make(chan struct{})}
	// Close waits for the run from the moment it can see it.
	s.workers.Add(1)
	st.mu.Lock()
	st.run = r
	st.mu.Unlock()
	st.busy.Store(true)
	st.hub.publish(statusEvent(true))
	go func() {
		defer s.workers.Done()
		defer close(r.done)
		defer cancel(nil)
		do(ctx, r)
	}()
}

// endRun records in memory that the session's run is over, at now. The
// caller holds st.row. A kernel warmed for the run that went unused is
// kept a while from now for the next message (see stopIdleKernels).
func (st *sessionState) endRun(now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.run = nil
	st.busy.Store(false)
	if st.kernelWarm {
		st.lastCell = now
	}
}

// running returns the session's run, nil when it is idle.
func (st *sessionState) running() *run {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.run
}

func statusEvent(running bool) albedo.Event {
	return albedo.Event{Type: wire.EventStatus, Running: &running}
}
