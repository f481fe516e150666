package albedo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// KindCompaction is the transcript item that records a compaction for
// people: Text is the summary and Raw its figures (CompactionFigures). It
// is shown (a compaction event), never sent to the model, never a fork
// checkpoint, and it changes nothing of the items before it.
const KindCompaction ItemKind = "compaction"

// CompactionFigures are the numbers a compaction event shows.
type CompactionFigures struct {
	// Items is how many transcript items the summary stands in for.
	Items int `json:"items"`
	// TokensBefore and TokensAfter estimate (bytes/4) the input of the
	// next request without and with the new summary.
	TokensBefore int64 `json:"tokens_before"`
	TokensAfter  int64 `json:"tokens_after"`
}

// compactionItem is the transcript item of a new compaction state.
func compactionItem(c Compaction, f CompactionFigures) Item {
	return Item{Kind: KindCompaction, Text: c.Summary, Raw: mustJSON(f), Timestamp: c.At}
}

// Figures returns the figures of a KindCompaction item; zero for any
// other item.
func (it Item) Figures() CompactionFigures {
	var f CompactionFigures
	if it.Kind == KindCompaction && len(it.Raw) > 0 {
		// albedo wrote them; a figure it cannot read shows as 0.
		_ = json.Unmarshal(it.Raw, &f)
	}
	return f
}

// compactionEvent fills the event of a KindCompaction item.
func compactionEvent(ev *Event, it Item) {
	f := it.Figures()
	ev.Type, ev.Text, ev.Summary = wire.EventCompaction, "", it.Text
	ev.Items, ev.TokensBefore, ev.TokensAfter = f.Items, f.TokensBefore, f.TokensAfter
}

// inputTokens estimates the tokens of a request input as MeasureContext
// does: the bytes of its items, each followed by a separator, over 4.
func inputTokens(input []json.RawMessage) int64 {
	var n int64
	for _, raw := range input {
		n += int64(len(raw)) + 1
	}
	return EstimateTokens(n)
}

// recordCompaction stores a new compaction state and its transcript item
// in one transaction, which also ends a turn's Compacting, and shows
// the item to subscribers. before is the estimated input of the next
// request without c. The caller does not hold the session's lock.
func (s *Service) recordCompaction(ctx context.Context, c Compaction, items []Item, ep Endpoint, before int64) error {
	after := inputTokens(ProjectCompacted(items, c, ep))
	it := compactionItem(c, CompactionFigures{Items: c.Items, TokensBefore: before, TokensAfter: after})
	st := s.state(c.SessionID)
	st.mu.Lock()
	defer st.mu.Unlock()
	change := Commit{SessionID: c.SessionID, Items: []Item{it}, Compaction: &c}
	sess, err := s.store.Session(ctx, c.SessionID)
	if err != nil {
		return fmt.Errorf("record compaction of session %s: %w", c.SessionID, err)
	}
	// A forced compaction's mark ends with its state, so that a turn
	// resumed after this commit does not compact again. A /compact keeps
	// its mark until it has marked the session idle (runCompaction): one
	// resumed in between finds nothing to compact and just ends.
	if sess.Compacting != "" && c.Strategy != CompactManual {
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
func (s *Service) appliedCompaction(ctx context.Context, st *sessionState, id string) (*Compaction, error) {
	if _, err := s.store.Compaction(ctx, id); ErrorCode(err) == ENotFound {
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
	_, err := s.updateSession(ctx, id, func(x *Session) error {
		x.Compacting = strategy
		return nil
	})
	if err != nil {
		return fmt.Errorf("record that session %s compacts: %w", id, err)
	}
	return nil
}
