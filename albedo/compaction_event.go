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
// in one transaction, and shows the item to subscribers. before is the
// estimated input of the next request without c.
func (s *Service) recordCompaction(ctx context.Context, c Compaction, items []Item, ep Endpoint, before int64) error {
	after := inputTokens(ProjectCompacted(items, c, ep))
	it := compactionItem(c, CompactionFigures{Items: c.Items, TokensBefore: before, TokensAfter: after})
	done, err := s.store.Commit(ctx, Commit{SessionID: c.SessionID, Items: []Item{it}, Compaction: &c})
	if err != nil {
		return fmt.Errorf("record compaction of session %s: %w", c.SessionID, err)
	}
	st := s.state(c.SessionID)
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, c.SessionID, done.Items)
	return nil
}
