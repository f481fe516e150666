package compaction

import (
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// SummaryPrefix opens the user message that carries a compaction summary.
const SummaryPrefix = "[summary of the earlier conversation]"

// quotedUsers is how many of the latest evicted user messages a compacted
// request quotes verbatim, and maxQuoted caps each of them.
const (
	quotedUsers = 3
	maxQuoted   = 1000
)

// SummaryText is the text of the user message that stands in for the
// evicted items.
func SummaryText(summary string, evicted []albedo.Item) string {
	var b strings.Builder
	b.WriteString(SummaryPrefix + "\n" + summary)
	var quoted []string
	for i := len(evicted) - 1; i >= 0 && len(quoted) < quotedUsers; i-- {
		if it := evicted[i]; it.Kind == albedo.KindUser && it.Source == "" && it.Text != "" {
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
	cut, cutShort := albedo.CutUTF8(s, maxQuoted)
	if !cutShort {
		return s
	}
	return cut + " […]"
}
