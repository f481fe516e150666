package engine

import (
	"context"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// heard publishes to this process's subscribers of a session the events
// of what another process sharing the store committed to it, up to seq,
// read from the store after the last durable event they had (so that
// none is missed or sent twice, whatever word came or was lost). An empty
// id means word may have been lost: every session with subscribers is
// read again. Options.Changes calls it, from one goroutine.
func (s *Service) heard(ctx context.Context, id string, seq int64) {
	if seq == albedo.InterruptSeq {
		s.heardInterrupt(id)
		return
	}
	if seq == albedo.WakeSeq {
		// Not on the watching goroutine: the session's row lock may be
		// held by a commit the store keeps waiting.
		go s.heardWake(id)
		return
	}
	s.mu.Lock()
	var ids []string
	if id == "" {
		for id, st := range s.sessions {
			if _, watched := st.hub.cursor(); watched {
				ids = append(ids, id)
			}
		}
	} else if _, ok := s.sessions[id]; ok {
		ids = []string{id}
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.catchUp(ctx, id, seq)
	}
}

// catchUp publishes the events of the session's items after the last
// durable event its subscribers had, unless this process runs its turn
// (and published them itself) or none subscribes.
func (s *Service) catchUp(ctx context.Context, id string, seq int64) {
	st := s.state(id)
	from, watched := st.hub.cursor()
	if !watched || st.running() != nil || (seq > 0 && seq <= from) {
		return
	}
	items, err := s.store.Items(ctx, id, from, 0)
	if err != nil {
		s.log.Warn("read another daemon's commits for the session's streams", "session", id, "err", err)
		return
	}
	events := make([]albedo.Event, 0, len(items))
	st.hub.mu.Lock()
	if st.hub.calls == nil {
		st.hub.calls = make(map[string]string)
	}
	calls := st.hub.calls
	st.hub.mu.Unlock()
	for _, it := range items {
		switch it.Kind {
		case albedo.KindToolCall:
			calls[it.CallID] = albedo.CallCode(it)
		case albedo.KindTurn:
			clear(calls)
		}
		if !it.Kind.Displayed() {
			continue
		}
		code, ok := calls[it.CallID]
		if it.Kind == albedo.KindToolOutput && !ok {
			code = s.callCode(ctx, st, id, it)
		}
		events = append(events, albedo.EventOf(it, code))
	}
	st.hub.publishHeard(events)
}

// watchChanges hears of other processes' commits until stop closes.
func (s *Service) watchChanges(changes albedo.Changes, stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-stop
		cancel()
	}()
	changes.Watch(ctx, func(id string, seq int64) { s.heard(ctx, id, seq) })
}

// heardInterrupt interrupts the session's turn if this process runs it:
// another process was asked to.
func (s *Service) heardInterrupt(id string) {
	s.mu.Lock()
	st, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		return
	}
	if r := st.running(); r != nil {
		s.log.Info("interrupting a turn as another daemon was asked to", "session", id)
		r.interrupt()
	}
}

// remoteInterruptWait bounds how long an interrupt of a turn another
// process runs waits for the turn to end.
const remoteInterruptWait = 30 * time.Second

// interruptElsewhere asks the process running the session's turn, which is
// not this one, to interrupt it, and waits until the stored session is no
// longer running. A session that is not running anywhere needs nothing.
func (s *Service) interruptElsewhere(ctx context.Context, id string) error {
	sess, err := s.store.Session(ctx, id)
	if err != nil || sess.Stage != albedo.StageRunning {
		return err
	}
	if err := s.changes.Interrupt(ctx, id); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, remoteInterruptWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return albedo.Errorf(albedo.EConflict, "session %s runs on another daemon, whose turn did not end within %s of the interrupt", id, remoteInterruptWait)
		case <-tick.C:
		}
		if sess, err = s.store.Session(ctx, id); err != nil || sess.Stage != albedo.StageRunning {
			return err
		}
	}
}
