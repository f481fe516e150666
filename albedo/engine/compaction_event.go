package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/projection"
)

// compactionItem is the transcript item of a new compaction state.
func compactionItem(c albedo.Compaction, f albedo.CompactionFigures) albedo.Item {
	return albedo.Item{Kind: albedo.KindCompaction, Text: c.Summary, Raw: albedo.MustJSON(f), Timestamp: c.At}
}

// inputTokens estimates the tokens of a request input as MeasureContext
// does: the bytes of its items, each followed by a separator, over 4.
func inputTokens(input []json.RawMessage) int64 {
	var n int64
	for _, raw := range input {
		n += int64(len(raw)) + 1
	}
	return albedo.EstimateTokens(n)
}

// recordCompaction stores a new compaction state and its transcript item
// in one transaction, which also ends a turn's Compacting, and shows
// the item to subscribers. before is the estimated input of the next
// request without c. The caller does not hold the session's lock.
func (s *Service) recordCompaction(ctx context.Context, c albedo.Compaction, items []albedo.Item, ep albedo.Endpoint, before int64) error {
	after := inputTokens(projection.ProjectCompacted(items, c, ep))
	it := compactionItem(c, albedo.CompactionFigures{Items: c.Items, TokensBefore: before, TokensAfter: after})
	st := s.state(c.SessionID)
	st.row.Lock()
	defer st.row.Unlock()
	change := albedo.Commit{SessionID: c.SessionID, Items: []albedo.Item{it}, Compaction: &c}
	sess, err := s.store.Session(ctx, c.SessionID)
	if err != nil {
		return fmt.Errorf("record compaction of session %s: %w", c.SessionID, err)
	}
	// A forced compaction's mark ends with its state, so that a turn
	// resumed after this commit does not compact again. A /compact keeps
	// its mark until it has marked the session idle (runCompaction): one
	// resumed in between finds nothing to compact and just ends.
	if sess.Compacting != "" && c.Strategy != albedo.CompactManual {
		sess.Compacting = ""
		change.Expect = s.touch(&sess)
		change.Session = &sess
	}
	done, err := s.store.Commit(ctx, change)
	if err != nil {
		return fmt.Errorf("record compaction of session %s: %w", c.SessionID, err)
	}
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, c.SessionID, done.Items)
	return nil
}

// appliedCompaction returns the compaction state that the next request of
// session id starts from, nil when there is none (or it no longer matches
// the transcript).
func (s *Service) appliedCompaction(ctx context.Context, st *sessionState, id string) (*albedo.Compaction, error) {
	if _, err := s.store.Compaction(ctx, id); albedo.ErrorCode(err) == albedo.ENotFound {
		return nil, nil // no transcript read for a session that never compacted
	}
	items, err := s.transcript(ctx, st, id)
	if err != nil {
		return nil, err
	}
	c, ok, err := s.compaction(ctx, id, items)
	if err != nil || !ok {
		return nil, err
	}
	return &c, nil
}

// markCompacting records that session id is about to ask for a summary
// (strategy says why), so that a crash during it is followed by the same
// compaction when the session resumes.
func (s *Service) markCompacting(ctx context.Context, id, strategy string) error {
	_, err := s.updateSession(ctx, id, func(x *albedo.Session) error {
		x.Compacting = strategy
		return nil
	})
	if err != nil {
		return fmt.Errorf("record that session %s compacts: %w", id, err)
	}
	return nil
}
