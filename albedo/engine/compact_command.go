package engine

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/albedo-agent/albedo/albedo"
)

// compactCommand runs /compact: on an idle session with units to evict it
// starts a compaction that runs like a turn (the session is running,
// status events say so, and an interrupt cancels it with no state change)
// and evicts everything but the tail (the newest units that fit in the
// tail share of the context window; only the newest unit when the window
// is unknown). A session with nothing to
// compact gets {"started": false} and no provider request.
func (s *Service) compactCommand(ctx context.Context, id string, _ json.RawMessage) (albedo.CommandResult, error) {
	st, err := s.existing(ctx, id)
	if err != nil {
		return albedo.CommandResult{}, err
	}
	// A provider that is not configured is refused now. The endpoint is
	// resolved before the lock is taken (it may record the provider's new
	// protocol, which takes it), and again by the compaction itself.
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return albedo.CommandResult{}, err
	}
	rd, err := s.readRound(ctx, sess)
	if err != nil {
		return albedo.CommandResult{}, err
	}
	st.row.Lock()
	defer st.row.Unlock()
	sess, err = s.store.Session(ctx, id)
	if err != nil {
		return albedo.CommandResult{}, err
	}
	if st.running() != nil || sess.Stage == albedo.StageRunning {
		return albedo.CommandResult{}, albedo.Errorf(albedo.EBusy, "session %s is running a turn: interrupt it or wait before compacting", id)
	}
	if s.isClosed() {
		return albedo.CommandResult{}, albedo.Errorf(albedo.EConflict, "albedo is shutting down")
	}
	items, err := s.transcript(ctx, st, id)
	if err != nil {
		return albedo.CommandResult{}, err
	}
	prev, prevOK, err := s.compaction(ctx, id, items)
	if err != nil {
		return albedo.CommandResult{}, err
	}
	if _, ok := planEviction(items, prev, prevOK, compactScope(items, rd).keep); !ok {
		return albedo.CommandResult{Compact: &albedo.CompactResult{Reason: albedo.ErrorMessage(errNothingToCompact)}}, nil
	}
	if owned, err := s.own(ctx, st, id); err != nil || !owned {
		if err == nil {
			err = albedo.Errorf(albedo.EBusy, "session %s is running on another daemon: wait before compacting", id)
		}
		return albedo.CommandResult{}, err
	}
	// Stored running and compacting first, so that a crash during the
	// summary is followed by the same compaction (see resumeLocked).
	if _, err := s.updateLocked(ctx, id, func(x *albedo.Session) error {
		x.Stage, x.Compacting = albedo.StageRunning, albedo.CompactManual
		return nil
	}); err != nil {
		s.release(ctx, id)
		return albedo.CommandResult{}, err
	}
	s.startRun(st, func(ctx context.Context, _ *run) { s.runCompaction(ctx, st, id) })
	return albedo.CommandResult{Compact: &albedo.CompactResult{Started: true}}, nil
}

// runCompaction asks for the summary of a /compact, on the session's own
// provider and model, and ends it: a failure is recorded as an error item,
// an interrupt changes nothing, and messages that arrived meanwhile start
// a turn. Cancelled by shutdown before the summary came back, it stays
// stored as running and is done again at the next start.
func (s *Service) runCompaction(ctx context.Context, st *sessionState, id string) {
	err := s.manualCompaction(ctx, st, id)
	if err != nil && ctx.Err() == nil && !errors.Is(err, errNothingToCompact) {
		s.log.Warn("compaction failed", "session", id, "err", err)
		if _, aerr := s.append(context.WithoutCancel(ctx), st, id, albedo.Item{Kind: albedo.KindError, Text: albedo.ErrorMessage(err), Timestamp: s.now()}); aerr != nil {
			s.log.Error("record compaction failure", "session", id, "err", aerr)
		}
	}
	bg := context.WithoutCancel(ctx)
	st.row.Lock()
	defer st.row.Unlock()
	st.endRun(s.clock.Now())
	turn := false
	defer func() {
		if !turn {
			s.release(bg, id)
		}
	}()
	shutdown := errors.Is(context.Cause(ctx), errShutdown)
	if shutdown && err != nil {
		return
	}
	q, qerr := s.store.Queued(bg, id)
	queued := qerr == nil && len(q) > 0
	sess, uerr := s.updateLocked(bg, id, func(x *albedo.Session) error {
		// Messages that wait make a turn: now, or at the next start.
		x.Stage, x.Compacting = albedo.StageIdle, ""
		if queued {
			x.Stage = albedo.StageRunning
		}
		return nil
	})
	if uerr != nil {
		s.log.Error("record the end of a compaction", "session", id, "err", uerr)
	} else if queued && !shutdown {
		turn = true
		s.startTurn(st, sess)
		return
	}
	if !shutdown {
		st.hub.publish(statusEvent(false))
	}
}

// manualCompaction makes the summary of a /compact.
func (s *Service) manualCompaction(ctx context.Context, st *sessionState, id string) error {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return err
	}
	items, err := s.transcript(ctx, st, id)
	if err != nil {
		return err
	}
	rd, err := s.readRound(ctx, sess)
	if err != nil {
		return err
	}
	_, err = s.compact(ctx, id, items, rd.ep, albedo.CompactManual, compactScope(items, rd))
	return err
}
