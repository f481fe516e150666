package projection

import (
	"encoding/base64"
	"encoding/json"
	"slices"

	"github.com/albedo-agent/albedo/albedo"
)

// Project turns a transcript into the native input array of protocol: the
// "messages" of Chat Completions or the "input" of Responses. Items made
// under protocol replay their Raw JSON where they have it; the rest are
// projected from their neutral fields. Only conversational items are sent.
// Every tool call reaches the provider paired with its output: a call with
// no output gets one saying so, and an output with no call is dropped.
func Project(items []albedo.Item, protocol albedo.Protocol) []json.RawMessage {
	return ProjectFor(items, albedo.Endpoint{Protocol: protocol})
}

// ProjectFor is Project for the endpoint a request goes to: a Chat
// Completions endpoint with ReasoningContent set also gets the reasoning of
// the current turn (after the last user message) back, as the
// "reasoning_content" of the assistant message it preceded.
func ProjectFor(items []albedo.Item, ep albedo.Endpoint) []json.RawMessage {
	items = pairCalls(items)
	if ep.Protocol == albedo.ProtocolChatCompletions {
		from := len(items)
		if ep.ReasoningContent {
			from = 0
			for i, it := range items {
				if it.Kind == albedo.KindUser {
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
func pairCalls(items []albedo.Item) []albedo.Item {
	p := NewPairer(items)
	for _, it := range items {
		p.Add(it)
	}
	p.Flush()
	return p.Out
}

// pairer is pairCalls one item at a time: out grows as items are added,
// and is whole after a last flush. It looks up outputs and images in the
// items it was made for.
type pairer struct {
	first  map[string]albedo.Item   // the first output of each call
	images map[string][]albedo.Item // the images each call's cell showed
	done   map[string]bool
	open   []albedo.Item // calls of the current reply still waiting for output
	// answering is set once the current reply's outputs began.
	answering bool
	Out       []albedo.Item
}

func NewPairer(items []albedo.Item) *pairer {
	p := &pairer{first: make(map[string]albedo.Item), images: make(map[string][]albedo.Item), done: make(map[string]bool),
		Out: make([]albedo.Item, 0, len(items))}
	for _, it := range items {
		switch it.Kind {
		case albedo.KindToolOutput:
			if _, seen := p.first[it.CallID]; !seen {
				p.first[it.CallID] = it
			}
		case albedo.KindToolImage:
			if it.Image != nil {
				p.images[it.CallID] = append(p.images[it.CallID], it)
			}
		}
	}
	return p
}

// Settled reports whether no call waits for its output.
func (p *pairer) Settled() bool { return len(p.open) == 0 }

// Flush gives every open call its output (or one saying there is none).
func (p *pairer) Flush() {
	p.answering = false
	for _, c := range p.open {
		o, ok := p.first[c.CallID]
		if !ok {
			o = albedo.Item{Kind: albedo.KindToolOutput, CallID: c.CallID, ToolName: c.ToolName, Text: UnpairedOutput}
		}
		p.Out = append(p.Out, o)
		p.Out = append(p.Out, p.images[c.CallID]...)
		p.done[c.CallID] = true
	}
	p.open = p.open[:0]
}

// Add pairs the next item.
func (p *pairer) Add(it albedo.Item) {
	if !it.Kind.Conversational() {
		return
	}
	switch it.Kind {
	case albedo.KindToolCall:
		if p.done[it.CallID] || p.isOpen(it.CallID) {
			return
		}
		if p.answering {
			p.Flush() // a call after outputs starts a new reply
		}
		p.open = append(p.open, it)
		p.Out = append(p.Out, it)
	case albedo.KindToolImage:
		// follows its output
	case albedo.KindToolOutput:
		if p.done[it.CallID] || !p.isOpen(it.CallID) {
			return
		}
		p.Out = append(p.Out, p.first[it.CallID])
		p.Out = append(p.Out, p.images[it.CallID]...)
		p.done[it.CallID] = true
		p.open = slices.DeleteFunc(p.open, func(c albedo.Item) bool { return c.CallID == it.CallID })
		p.answering = true
	default:
		p.Flush()
		p.Out = append(p.Out, it)
	}
}

// isOpen reports whether the call id waits for its output in the current
// reply.
func (p *pairer) isOpen(id string) bool {
	return slices.ContainsFunc(p.open, func(c albedo.Item) bool { return c.CallID == id })
}

// noteText renders a user item for the model: plain text for the user's own
// words, system notes for messages albedo wrote.
func noteText(it albedo.Item) string {
	text := it.Text
	if it.Source != "" {
		text = `<system-note origin="` + it.Source + `">` + it.Text + "</system-note>"
	}
	for _, n := range it.Notes {
		text += "\n<system-note>" + n + "</system-note>"
	}
	return text
}

// toolImageNote marks an image as shown by a tool call, not sent by the
// user.
func toolImageNote(it albedo.Item) string {
	return `<system-note origin="` + it.ToolName + `">` + it.Text + "</system-note>"
}

func dataURL(img *albedo.Image) string {
	return "data:" + img.MimeType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}
