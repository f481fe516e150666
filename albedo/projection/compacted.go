package projection

import (
	"encoding/json"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
)

// ProjectCompacted is ProjectFor for a session with a compaction state:
// one user message with the summary and the latest few evicted user
// messages quoted verbatim, then the tail of the transcript after the cut
// as ProjectFor projects it. The cut lies between units, so every call in
// the tail keeps its output. A state that does not apply to items (see
// Compaction) is ignored and the whole transcript projected.
func ProjectCompacted(items []albedo.Item, c albedo.Compaction, ep albedo.Endpoint) []json.RawMessage {
	cut, ok := compaction.CutIndex(c, items)
	if !ok {
		return ProjectFor(items, ep)
	}
	head := albedo.Item{Kind: albedo.KindUser, Text: compaction.SummaryText(c.Summary, items[:cut])}
	projected := make([]albedo.Item, 0, len(items)-cut+1)
	projected = append(projected, head)
	projected = append(projected, items[cut:]...)
	return ProjectFor(projected, ep)
}
