package compaction

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// maxRenderedText caps each text of the evicted history in a summary
// request; the rest is replaced by a marker saying how much was cut.
const maxRenderedText = 4000

// RenderEvicted renders the text of a summary request: the previous
// summary (or "(none)") and the evicted items, as text. Calls show their
// code, outputs their text, images their metadata and never their data;
// long texts are cut with a marker.
func RenderEvicted(previous string, items []albedo.Item) string {
	var b strings.Builder
	b.WriteString("<previous-summary>\n" + cmp.Or(previous, "(none)") + "\n</previous-summary>\n<newly-evicted-history>\n")
	for _, it := range items {
		b.WriteString(renderItem(it))
	}
	b.WriteString("</newly-evicted-history>")
	return b.String()
}

// renderItem renders one evicted item as RenderEvicted shows it; items the
// model never sees render as "".
func renderItem(it albedo.Item) string {
	var b strings.Builder
	switch it.Kind {
	case albedo.KindUser:
		who := "user"
		if it.Source != "" {
			who = "system note (" + it.Source + ")"
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", who, cutText(it.Text))
		for _, n := range it.Notes {
			fmt.Fprintf(&b, "[system note]\n%s\n", cutText(n))
		}
		if it.Image != nil {
			fmt.Fprintf(&b, "[image: %s, %dx%d, %d bytes]\n", it.Image.MimeType, it.Image.Width, it.Image.Height, it.Image.Bytes)
		}
	case albedo.KindReasoning:
		if it.Text != "" {
			fmt.Fprintf(&b, "[assistant reasoning]\n%s\n", cutText(it.Text))
		}
	case albedo.KindAssistant:
		fmt.Fprintf(&b, "[assistant]\n%s\n", cutText(it.Text))
	case albedo.KindToolCall:
		code := cmp.Or(albedo.CallCode(it), it.Arguments)
		fmt.Fprintf(&b, "[%s call %s]\n%s\n", it.ToolName, it.CallID, cutText(code))
	case albedo.KindToolOutput:
		fmt.Fprintf(&b, "[output of %s]\n%s\n", it.CallID, cutText(it.Text))
	case albedo.KindToolImage:
		if it.Image != nil {
			fmt.Fprintf(&b, "[image shown by %s: %s, %dx%d, %d bytes]\n", it.CallID, it.Image.MimeType, it.Image.Width, it.Image.Height, it.Image.Bytes)
		}
	}
	return b.String()
}

// EvictedChunks splits evicted items into the chunks that summary
// requests carry one by one: each renders to at most limit tokens by the
// estimate (the bytes of the rendered text as a JSON string, divided by
// 4), except a chunk of one item that alone is larger. limit <= 0 is one
// chunk.
func EvictedChunks(items []albedo.Item, limit int64) [][]albedo.Item {
	if limit <= 0 || len(items) == 0 {
		return [][]albedo.Item{items}
	}
	var chunks [][]albedo.Item
	from, size := 0, int64(0)
	for i, it := range items {
		n := albedo.EstimateTokens(JsonStringSize(renderItem(it)))
		if i > from && size+n > limit {
			chunks = append(chunks, items[from:i])
			from, size = i, 0
		}
		size += n
	}
	return append(chunks, items[from:])
}

// JsonStringSize is how many bytes s takes as a JSON string, quotes
// included, as encoding/json writes it.
func JsonStringSize(s string) int64 {
	raw, err := json.Marshal(s)
	if err != nil {
		return int64(len(s))
	}
	return int64(len(raw))
}

// cutText caps s at maxRenderedText bytes on a character boundary, with a
// marker saying how many bytes were left out.
func cutText(s string) string {
	cut, cutShort := albedo.CutUTF8(s, maxRenderedText)
	if !cutShort {
		return s
	}
	return fmt.Sprintf("%s\n[… %d more bytes cut]", cut, len(s)-len(cut))
}

// SummaryInstructions are the instructions of a summary request.
const SummaryInstructions = `You summarise the earlier part of a conversation between a user and a coding agent that works through a persistent Python tool, so that the agent can continue the work without it. The user message holds the previous summary and the history that is being evicted. Write one self-contained summary that replaces both: the user's goals and constraints in their own terms, decisions made, what was done and found (files, functions, commands, results, errors), Python state the later work relies on (variables, imports, definitions), and what remains open. Be concrete and brief: at most about 600 words, plain text, no preamble.`
