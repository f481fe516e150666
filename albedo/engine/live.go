package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// sharedLive reports whether live events of this type reach the
// subscribers of the other processes sharing the store: those of a turn
// (deltas, cell output, status) and of the queue. Overflow, deleted and
// gap events belong to one process's streams.
func sharedLive(typ string) bool {
	switch typ {
	case wire.EventDelta, wire.EventOutput, wire.EventStatus, wire.EventQueued, wire.EventUnqueued:
		return true
	}
	return false
}

// shareLive sends this process's live events to the other processes
// sharing the store and publishes theirs to this process's subscribers,
// until stop closes.
func (s *Service) shareLive(live albedo.LiveEvents, stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-stop
		cancel()
	}()
	live.Run(ctx, s.heardLive)
}

// heardLive publishes a live event of another process to this process's
// subscribers of its session, unless this process runs the session's turn
// (whose live events it publishes itself). A gap is published to every
// session with subscribers whose turn this process does not run.
func (s *Service) heardLive(ev albedo.LiveEvent) {
	s.mu.Lock()
	var states []*sessionState
	if ev.Gap {
		for _, st := range s.sessions {
			states = append(states, st)
		}
		ev.Event = albedo.Event{Type: wire.EventGap}
	} else if st, ok := s.sessions[ev.SessionID]; ok {
		states = append(states, st)
	}
	s.mu.Unlock()
	for _, st := range states {
		if st.running() == nil {
			st.hub.publishLive(ev.Stamp, ev.Event, ev.Gap)
		}
	}
}

// publishLive publishes another process's live event, stamped with the
// newest durable Seq that process had published before it. A delta or an
// output stamped below the newest durable event published here belongs
// to an item already shown whole, and is dropped unless always is set (a
// gap); nothing is published to a hub without subscribers.
func (h *hub) publishLive(stamp int64, ev albedo.Event, always bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) == 0 {
		return
	}
	if !always && (ev.Type == wire.EventDelta || ev.Type == wire.EventOutput) && stamp < h.seen {
		return
	}
	h.publishLocked([]albedo.Event{ev})
}
