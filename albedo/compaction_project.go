package albedo

import (
	"encoding/json"
	"strings"
)

// SummaryPrefix opens the user message that carries a compaction summary.
const SummaryPrefix = "[summary of the earlier conversation]"

// quotedUsers is how many of the latest evicted user messages a compacted
// request quotes verbatim, and maxQuoted caps each of them.
const (
	quotedUsers = 3
	maxQuoted   = 1000
)

// ProjectCompacted is ProjectFor for a session with a compaction state:
// one user message with the summary and the latest few evicted user
// messages quoted verbatim, then the tail of the transcript after the cut
// as ProjectFor projects it. The cut lies between units, so every call in
// the tail keeps its output. A state that does not apply to items (see
// Compaction) is ignored and the whole transcript projected.
func ProjectCompacted(items []Item, c Compaction, ep Endpoint) []json.RawMessage {
	cut, ok := c.CutIndex(items)
	if !ok {
		return ProjectFor(items, ep)
	}
	head := Item{Kind: KindUser, Text: SummaryText(c.Summary, items[:cut])}
	projected := make([]Item, 0, len(items)-cut+1)
	projected = append(projected, head)
	projected = append(projected, items[cut:]...)
	return ProjectFor(projected, ep)
}

// summaryText is the text of the user message that stands in for the
// evicted items.
func SummaryText(summary string, evicted []Item) string {
	var b strings.Builder
	b.WriteString(SummaryPrefix)
	b.WriteString("\n")
	b.WriteString(summary)
	var quoted []string
	for i := len(evicted) - 1; i >= 0 && len(quoted) < quotedUsers; i-- {
		if it := evicted[i]; it.Kind == KindUser && it.Source == "" && it.Text != "" {
			quoted = append(quoted, it.Text)
		}
	}
	if len(quoted) == 0 {
		return b.String()
	}
	b.WriteString("\n\n[the user's latest earlier messages, verbatim, oldest first]")
	for i := len(quoted) - 1; i >= 0; i-- {
		b.WriteString("\n> ")
		b.WriteString(strings.ReplaceAll(shorten(quoted[i]), "\n", "\n> "))
	}
	return b.String()
}

// shorten caps a quoted message at maxQuoted bytes with a marker.
func shorten(s string) string {
	cut, cutShort := cutUTF8(s, maxQuoted)
	if !cutShort {
		return s
	}
	return cut + " […]"
}
