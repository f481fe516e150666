package albedo

import (
	"encoding/json"

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
