package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// heard publishes to this process's subscribers of a session the events
// of what another process sharing the store committed to it, up to seq,
// read from the store after the last durable event they had (so that
// none is missed or sent twice, whatever word came or was lost). An empty
// id means word may have been lost: every session with subscribers is
// read again. Options.Changes calls it, from one goroutine.
func (s *Service) heard(ctx context.Context, id string, seq int64) {
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
