package albedo

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
)

// Project turns a transcript into the native input array of protocol: the
// "messages" of Chat Completions or the "input" of Responses. Items made
// under protocol replay their Raw JSON where they have it; the rest are
// projected from their neutral fields. Only conversational items are sent.
// Every tool call reaches the provider paired with its output: a call with
// no output gets one saying so, and an output with no call is dropped.
func Project(items []Item, protocol Protocol) []json.RawMessage {
	return ProjectFor(items, Endpoint{Protocol: protocol})
}

// ProjectFor is Project for the endpoint a request goes to: a Chat
// Completions endpoint with ReasoningContent set also gets the reasoning of
// the current turn (after the last user message) back, as the
// "reasoning_content" of the assistant message it preceded.
func ProjectFor(items []Item, ep Endpoint) []json.RawMessage {
	items = pairCalls(items)
	if ep.Protocol == ProtocolChatCompletions {
		from := len(items)
		if ep.ReasoningContent {
			from = 0
			for i, it := range items {
				if it.Kind == KindUser {
					from = i + 1
				}
			}
		}
		return projectChat(items, from)
	}
	return projectResponses(items)
}

// UnpairedOutput is the output a call gets when the transcript has none.
const UnpairedOutput = "no output was recorded for this call"

// pairCalls returns the conversational items with every tool call's
// output right after the calls of its reply: an output recorded later (for
// example after a message that was delivered while the cell ran) is moved
// up, a missing one is invented, and an output whose call is unknown, or a
// second output of one call, is dropped. The images a cell showed follow
// its output.
func pairCalls(items []Item) []Item {
	first := make(map[string]Item)
	images := make(map[string][]Item) // the images each call's cell showed
	for _, it := range items {
		switch it.Kind {
		case KindToolOutput:
			if _, seen := first[it.CallID]; !seen {
				first[it.CallID] = it
			}
		case KindToolImage:
			if it.Image != nil {
				images[it.CallID] = append(images[it.CallID], it)
			}
		}
	}
	out := make([]Item, 0, len(items))
	done := make(map[string]bool)
	var open []Item // calls of the current reply still waiting for output
	answering := false
	flush := func() {
		answering = false
		for _, c := range open {
			o, ok := first[c.CallID]
			if !ok {
				o = Item{Kind: KindToolOutput, CallID: c.CallID, ToolName: c.ToolName, Text: UnpairedOutput}
			}
			out = append(out, o)
			out = append(out, images[c.CallID]...)
			done[c.CallID] = true
		}
		open = open[:0]
	}
	for _, it := range items {
		if !it.Kind.Conversational() {
			continue
		}
		switch it.Kind {
		case KindToolCall:
			if done[it.CallID] || slices.ContainsFunc(open, func(c Item) bool { return c.CallID == it.CallID }) {
				continue
			}
			if answering {
				flush() // a call after outputs starts a new reply
			}
			open = append(open, it)
			out = append(out, it)
		case KindToolImage:
			continue // follows its output
		case KindToolOutput:
			if done[it.CallID] || !slices.ContainsFunc(open, func(c Item) bool { return c.CallID == it.CallID }) {
				continue
			}
			out = append(out, first[it.CallID])
			out = append(out, images[it.CallID]...)
			done[it.CallID] = true
			open = removeCall(open, it.CallID)
			answering = true
		default:
			flush()
			out = append(out, it)
		}
	}
	flush()
	return out
}

func removeCall(open []Item, id string) []Item {
	for i, c := range open {
		if c.CallID == id {
			return append(open[:i], open[i+1:]...)
		}
	}
	return open
}

// noteText renders a user item for the model: plain text for the user's own
// words, system notes for messages albedo wrote.
func noteText(it Item) string {
	var b strings.Builder
	if it.Source != "" {
		b.WriteString(`<system-note origin="`)
		b.WriteString(it.Source)
		b.WriteString(`">`)
		b.WriteString(it.Text)
		b.WriteString("</system-note>")
	} else {
		b.WriteString(it.Text)
	}
	for _, n := range it.Notes {
		b.WriteString("\n<system-note>")
		b.WriteString(n)
		b.WriteString("</system-note>")
	}
	return b.String()
}

// toolImageNote marks an image as shown by a tool call, not sent by the
// user.
func toolImageNote(it Item) string {
	return `<system-note origin="` + it.ToolName + `">` + it.Text + "</system-note>"
}

func dataURL(img *Image) string {
	return "data:" + img.MimeType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Only maps, slices and strings are marshalled here.
		panic("albedo: marshal projection: " + err.Error())
	}
	return b
}
