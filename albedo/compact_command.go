package albedo

import (
	"context"
	"encoding/json"
	"errors"
)

// CompactResult is the result of /compact: whether a compaction started,
// and why not when it did not.
type CompactResult struct {
	Started bool   `json:"started"`
	Reason  string `json:"reason,omitempty"`
}

// compactCommand runs /compact: on an idle session with units to evict it
// starts a compaction that runs like a turn (the session is running,
// status events say so, and an interrupt cancels it with no state change)
// and evicts everything but the tail (the newest units that fit in the
// tail share of the context window; only the newest unit when the window
// is unknown). A session with nothing to
// compact gets {"started": false} and no provider request.
func (s *Service) compactCommand(ctx context.Context, id string, _ json.RawMessage) (any, error) {
	st, err := s.existing(ctx, id)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.turn != nil || sess.Stage == StageRunning {
		return nil, Errorf(EBusy, "session %s is running a turn: interrupt it or wait before compacting", id)
	}
	if s.isClosed() {
		return nil, Errorf(EConflict, "albedo is shutting down")
	}
	items, err := s.transcript(ctx, st, id)
	if err != nil {
		return nil, err
	}
	prev, prevOK, err := s.compaction(ctx, id, items)
	if err != nil {
		return nil, err
	}
	ep, err := s.endpoint(ctx, st, sess)
	if err != nil {
		return nil, err
	}
	scope := s.compactScope(items, ep, s.window(ctx, sess).tokens())
	if _, ok := planEviction(items, prev, prevOK, scope.keep); !ok {
		return CompactResult{Reason: ErrorMessage(errNothingToCompact)}, nil
	}
	s.startRun(st, func(ctx context.Context) { s.runCompaction(ctx, st, id, items, ep, scope) })
	return CompactResult{Started: true}, nil
}

// runCompaction asks for the summary of a /compact and ends it: a failure
// is recorded as an error item, an interrupt changes nothing, and messages
// that arrived meanwhile start a turn.
func (s *Service) runCompaction(ctx context.Context, st *sessionState, id string, items []Item, ep Endpoint, scope evictionScope) {
	_, err := s.compact(ctx, id, items, ep, CompactManual, scope)
	if err != nil && ctx.Err() == nil && !errors.Is(err, errNothingToCompact) {
		s.log.Warn("compaction failed", "session", id, "err", err)
		if _, aerr := s.append(context.WithoutCancel(ctx), st, id, Item{Kind: KindError, Text: ErrorMessage(err), Timestamp: s.now()}); aerr != nil {
			s.log.Error("record compaction failure", "session", id, "err", aerr)
		}
	}
	bg := context.WithoutCancel(ctx)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.turn = nil
	st.busy.Store(false)
	if q, qerr := s.store.Queued(bg, id); qerr == nil && len(q) > 0 && !errors.Is(context.Cause(ctx), errShutdown) {
		if _, uerr := s.updateLocked(bg, id, func(x *Session) error {
			x.Stage = StageRunning
			return nil
		}); uerr == nil {
			s.startTurn(st, id)
			return
		}
	}
	st.hub.publish(statusEvent(false))
}
