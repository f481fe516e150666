package engine

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// fail records a failure of the turn where people will see it. What
// people see of an internal error (a store's or albedo's own) is
// ErrorMessage's plain "internal error"; its detail goes to the log.
func (t *turn) fail(ctx context.Context, err error) stepOutcome {
	return t.failWith(ctx, err, albedo.ErrorMessage(err))
}

// failAsking records the failure of a model request: the provider's
// words, or the connection's when the provider said nothing albedo knows.
func (t *turn) failAsking(ctx context.Context, err error) stepOutcome {
	msg := albedo.ErrorMessage(err)
	if albedo.ErrorCode(err) == albedo.EInternal {
		msg = err.Error()
	}
	return t.failWith(ctx, err, msg)
}

// failWith records a failure of the turn, shown as msg.
func (t *turn) failWith(ctx context.Context, err error, msg string) stepOutcome {
	if ctx.Err() != nil {
		return stepCancelled
	}
	t.s.log.Warn("turn failed", "session", t.id, "err", err)
	failure := albedo.Item{Kind: albedo.KindError, Text: msg, Timestamp: t.s.now()}
	if _, aerr := t.append(context.WithoutCancel(ctx), failure); aerr != nil {
		// Subscribers learn of the failure even when it cannot be stored.
		t.s.log.Error("record turn failure", "session", t.id, "err", aerr)
		t.st.hub.publish(albedo.EventOf(failure, ""))
	}
	return stepFailed
}

// finish ends the turn unless messages are waiting (then it returns false
// and the turn goes on), or force is set. Calls left without output get
// one. The end is recorded under the row's lock, which a message takes
// too: it either joins this turn or finds the session idle.
func (t *turn) finish(ctx context.Context, marker string, force bool) bool {
	s, st := t.s, t.st
	ctx = context.WithoutCancel(ctx)
	st.row.Lock()
	defer st.row.Unlock()
	var (
		done  albedo.Committed
		items []albedo.Item
		err   error
	)
	for attempt := 1; ; attempt++ {
		if !force {
			if q, err := s.store.Queued(ctx, t.id); err == nil && len(q) > 0 {
				return false
			}
		}
		var cerr error
		items, cerr = s.closingItems(ctx, st, t.id)
		if cerr != nil {
			s.log.Error("close turn", "session", t.id, "err", cerr)
		}
		items = append(items, albedo.Item{Kind: albedo.KindTurn, Text: marker, Timestamp: s.now()})
		done, err = t.writeRowOnce(ctx, func(x *albedo.Session) {
			x.Stage, x.Compacting = albedo.StageIdle, ""
		}, albedo.Commit{SessionID: t.id, Items: items})
		if albedo.ErrorCode(err) != albedo.EStale || attempt == routeAttempts {
			break
		}
		// Another writer changed the row: a process sharing the store may
		// have queued a message, which the turn must take before it ends.
		if t.sess, err = s.store.Session(ctx, t.id); err != nil {
			break
		}
	}
	t.end(ctx)
	if albedo.ErrorCode(err) == albedo.ELeaseLost {
		// Another daemon took the turn over: it records the end.
		return true
	}
	if err != nil {
		// The turn is over all the same: the session must not look busy
		// to anyone. Its end is recorded with its next message (see
		// recordEnd); should albedo stop first, the next start resumes it.
		s.log.Error("record end of turn", "session", t.id, "err", err)
		// The note of why joins the end, so that the history says it too.
		lost := albedo.Item{Kind: albedo.KindError, Text: "albedo could not record the end of this turn: " + albedo.ErrorMessage(err), Timestamp: s.now()}
		st.unrecorded = append(items[:len(items)-1:len(items)-1], lost, items[len(items)-1])
		for _, it := range st.unrecorded {
			st.hub.publish(albedo.EventOf(it, ""))
		}
		st.hub.publish(statusEvent(false))
		return true
	}
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, t.id, done.Items)
	st.hub.publish(statusEvent(false))
	st.cache.forgetIfBig()
	return true
}

// abandon forgets a turn cancelled by shutdown, or by the loss of its
// lease, without writing anything: it stays running in the store and
// resumes at the next start, or where its lease is taken next.
func (t *turn) abandon() {
	if t.s.leases == nil {
		t.st.endRun(t.s.clock.Now())
		return
	}
	// The lease is given up under the row's lock, which orders it with
	// a message that would take it.
	t.st.row.Lock()
	defer t.st.row.Unlock()
	t.end(context.Background())
}

// end records in memory that the turn is over and gives up its lease.
// The caller holds st.row.
func (t *turn) end(ctx context.Context) {
	t.st.endRun(t.s.clock.Now())
	t.s.release(ctx, t.id)
}

// recordEnd stores the end of a turn that finish could not record, with
// the session idle. The caller holds st.row.
func (s *Service) recordEnd(ctx context.Context, st *sessionState, id string) error {
	if len(st.unrecorded) == 0 {
		return nil
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return err
	}
	sess.Stage, sess.Compacting = albedo.StageIdle, ""
	s.touch(&sess)
	done, err := s.store.Commit(ctx, albedo.Commit{Session: &sess, Items: st.unrecorded})
	if err != nil {
		return fmt.Errorf("record the end of the last turn of session %s: %w", id, err)
	}
	st.unrecorded = nil
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, id, done.Items)
	return nil
}

// closingLookback is how many of the last items closingItems reads when
// the transcript is not in memory.
const closingLookback = 1024

// closingItems returns interrupted outputs for the calls at the end of the
// transcript that have none.
func (s *Service) closingItems(ctx context.Context, st *sessionState, id string) ([]albedo.Item, error) {
	items, ok := st.cache.cached()
	if !ok {
		// The calls left without output are those of the last reply, at
		// the end of the transcript.
		var err error
		if items, err = s.store.ItemPage(ctx, id, albedo.ItemQuery{Limit: closingLookback, Newest: true, NoResults: true}); err != nil {
			return nil, err
		}
	}
	var out []albedo.Item
	for _, call := range unansweredCalls(items) {
		res := albedo.CellResult{Status: albedo.CellInterrupted, Error: "the turn was interrupted before this cell ran"}
		out = append(out, outputItem(call, res, s.now()))
	}
	return out, nil
}

// unansweredCalls returns the tool calls that have no output, in order.
func unansweredCalls(items []albedo.Item) []albedo.Item {
	answered := make(map[string]bool)
	for _, it := range items {
		if it.Kind == albedo.KindToolOutput {
			answered[it.CallID] = true
		}
	}
	var calls []albedo.Item
	for _, it := range items {
		if it.Kind == albedo.KindToolCall && !answered[it.CallID] {
			calls = append(calls, it)
		}
	}
	return calls
}

// outputItem makes the transcript item of a cell's result.
func outputItem(call albedo.Item, res albedo.CellResult, now int64) albedo.Item {
	return albedo.Item{
		Kind:      albedo.KindToolOutput,
		CallID:    call.CallID,
		ToolName:  call.ToolName,
		Text:      string(albedo.MustJSON(res)),
		Result:    &res,
		Timestamp: now,
	}
}

// outputItems makes the transcript items of a cell's result: its output,
// then one KindToolImage item for each image it showed.
func outputItems(call albedo.Item, res albedo.CellResult, now int64) []albedo.Item {
	shown := res.Shown
	res.Shown = nil
	items := []albedo.Item{outputItem(call, res, now)}
	for i, img := range shown {
		items = append(items, albedo.Item{
			Kind:      albedo.KindToolImage,
			CallID:    call.CallID,
			ToolName:  call.ToolName,
			Text:      fmt.Sprintf("image %d of %d shown by the %s call %s", i+1, len(shown), call.ToolName, call.CallID),
			Image:     img,
			Timestamp: now,
		})
	}
	return items
}
