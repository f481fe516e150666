package engine

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// deliver moves the session's waiting messages into its transcript and
// reports whether there were any; it reads the session's row, once per
// step, into t.sess. When the kernel lost globals the model relied on, the
// last message tells the model so; a note that is not empty is added to
// the last message too.
func (t *turn) deliver(ctx context.Context, note string) (bool, error) {
	s, st := t.s, t.st
	st.row.Lock()
	defer st.row.Unlock()
	queued, err := s.store.Queued(ctx, t.id)
	if err != nil {
		return false, err
	}
	if t.sess, err = s.store.Session(ctx, t.id); err != nil {
		return false, err
	}
	if len(queued) == 0 {
		return false, nil
	}
	items := make([]albedo.Item, len(queued))
	ids := make([]int64, len(queued))
	for i, q := range queued {
		items[i] = q.Item()
		ids[i] = q.ID
	}
	last := &items[len(items)-1]
	if note != "" {
		last.Notes = append(append([]string(nil), last.Notes...), note)
	}
	change := albedo.Commit{SessionID: t.id, Items: items, Dequeue: ids}
	var done albedo.Committed
	if t.sess.KernelUsed && !st.isKernelLive() {
		last.Notes = append(append([]string(nil), last.Notes...), albedo.KernelResetNote)
		done, err = t.writeRowLocked(ctx, func(x *albedo.Session) { x.KernelUsed = false }, change)
	} else {
		done, err = t.commit(ctx, change)
	}
	if err != nil {
		return false, fmt.Errorf("deliver queued messages of session %s: %w", t.id, err)
	}
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, t.id, done.Items)
	return true, nil
}

// writeRow commits change with the session's row changed by edit, under
// the row's lock.
func (t *turn) writeRow(ctx context.Context, edit func(*albedo.Session), change albedo.Commit) (albedo.Committed, error) {
	t.st.row.Lock()
	defer t.st.row.Unlock()
	return t.writeRowLocked(ctx, edit, change)
}

// writeRowLocked is writeRow for a caller that holds st.row. The row is
// edited from t.sess, which then holds what was written; a row another
// writer changed meanwhile (a rename, a protocol recorded by readRound) is
// read again and edited once more.
func (t *turn) writeRowLocked(ctx context.Context, edit func(*albedo.Session), change albedo.Commit) (albedo.Committed, error) {
	done, err := t.writeRowOnce(ctx, edit, change)
	if albedo.ErrorCode(err) != albedo.EStale {
		return done, err
	}
	if t.sess, err = t.s.store.Session(ctx, t.id); err != nil {
		return albedo.Committed{}, err
	}
	return t.writeRowOnce(ctx, edit, change)
}

// writeRowOnce commits change with t.sess changed by edit, unless another
// writer changed the stored row since t.sess was read (EStale). The
// caller holds st.row.
func (t *turn) writeRowOnce(ctx context.Context, edit func(*albedo.Session), change albedo.Commit) (albedo.Committed, error) {
	sess := t.sess
	edit(&sess)
	change.Session, change.Expect = &sess, t.s.touch(&sess)
	done, err := t.commit(ctx, change)
	if err != nil {
		return albedo.Committed{}, err
	}
	t.sess = sess
	return done, nil
}

// commit applies a change of the turn; an interrupt that comes while the
// store keeps it waiting does not wait for it.
func (t *turn) commit(ctx context.Context, change albedo.Commit) (albedo.Committed, error) {
	defer t.run.inStore()()
	if change.SessionID == "" && change.Session == nil {
		change.SessionID = t.id
	}
	return t.s.store.Commit(ctx, change)
}

// append commits items to the turn's transcript and publishes their
// events.
func (t *turn) append(ctx context.Context, items ...albedo.Item) ([]albedo.Item, error) {
	if len(items) == 0 {
		return nil, nil
	}
	done, err := t.commit(ctx, albedo.Commit{SessionID: t.id, Items: items})
	if err != nil {
		return nil, fmt.Errorf("record transcript of session %s: %w", t.id, err)
	}
	t.st.cache.remember(done.Items)
	t.s.publishItems(ctx, t.st, t.id, done.Items)
	return done.Items, nil
}

// append commits items to a session's transcript and publishes their
// events.
func (s *Service) append(ctx context.Context, st *sessionState, id string, items ...albedo.Item) ([]albedo.Item, error) {
	if len(items) == 0 {
		return nil, nil
	}
	done, err := s.store.Commit(ctx, albedo.Commit{SessionID: id, Items: items})
	if err != nil {
		return nil, fmt.Errorf("record transcript of session %s: %w", id, err)
	}
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, id, done.Items)
	return done.Items, nil
}

// publishItems sends the events of newly stored items to subscribers.
func (s *Service) publishItems(ctx context.Context, st *sessionState, id string, items []albedo.Item) {
	events := make([]albedo.Event, 0, len(items))
	for _, it := range items {
		if !it.Kind.Displayed() {
			continue
		}
		code := ""
		if it.Kind == albedo.KindToolOutput {
			code = s.callCode(ctx, st, id, it)
		}
		events = append(events, albedo.EventOf(it, code))
	}
	st.hub.publish(events...)
}

// callCode finds the code of the call an output answers, looking back over
// the recent transcript.
func (s *Service) callCode(ctx context.Context, st *sessionState, id string, out albedo.Item) string {
	items, ok := st.cache.cached()
	if !ok {
		var err error
		if items, err = s.store.Items(ctx, id, max(out.Seq-64, 0), 0); err != nil {
			return ""
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Kind == albedo.KindToolCall && items[i].CallID == out.CallID {
			return albedo.CallCode(items[i])
		}
	}
	return ""
}
