package projection

import (
	"encoding/json"

	"github.com/albedo-agent/albedo/albedo"
)

// projectChat builds Chat Completions messages. Consecutive assistant text
// and tool calls of one reply merge into one assistant message. Reasoning
// is not replayed (most Chat Completions providers do not take it back),
// except that items from index reasoningFrom on give their reasoning to the
// assistant message that follows it, as "reasoning_content". Tool messages
// cannot carry images: the images cells showed follow the tool messages of
// their reply as one user message, marked as the tool's.
func projectChat(items []albedo.Item, reasoningFrom int) []json.RawMessage {
	p := ChatProjector{From: reasoningFrom}
	for _, it := range items {
		p.Add(it)
	}
	p.Flush()
	return p.Out
}

// ChatProjector is projectChat one item at a time: out grows as items are
// added, and is whole after a last flush.
type ChatProjector struct {
	Out             []json.RawMessage
	text, reasoning *string
	calls           []albedo.Item
	shown           []albedo.Item
	// from is the index of the first item whose reasoning is sent; i is
	// the index of the next item.
	From, i int
}

// Idle reports whether nothing waits to be merged into a message: what
// was added so far is all in out.
func (p *ChatProjector) Idle() bool {
	return p.text == nil && p.reasoning == nil && p.calls == nil && len(p.shown) == 0
}

func (p *ChatProjector) flushImages() {
	if len(p.shown) > 0 {
		p.Out = append(p.Out, chatToolImages(p.shown))
		p.shown = nil
	}
}

// Flush ends the assistant message being merged, if any.
func (p *ChatProjector) Flush() {
	p.flushImages()
	if p.text == nil && p.calls == nil {
		return
	}
	msg := newObject()
	msg.str("role", "assistant")
	if p.text != nil {
		msg.str("content", *p.text)
	} else {
		msg.raw("content", []byte("null"))
	}
	if p.reasoning != nil {
		msg.str("reasoning_content", *p.reasoning)
	}
	if p.calls != nil {
		msg.key("tool_calls")
		msg.b = append(msg.b, '[')
		for i, c := range p.calls {
			if i > 0 {
				msg.b = append(msg.b, ',')
			}
			msg.b = appendChatCall(msg.b, c)
		}
		msg.b = append(msg.b, ']')
	}
	p.Out = append(p.Out, msg.done())
	p.text, p.calls, p.reasoning = nil, nil, nil
}

// Add projects the next item.
func (p *ChatProjector) Add(it albedo.Item) {
	i := p.i
	p.i++
	switch it.Kind {
	case albedo.KindReasoning:
		if i >= p.From && it.Text != "" {
			if p.text != nil || p.calls != nil {
				p.Flush()
			}
			r := it.Text
			if p.reasoning != nil {
				r = *p.reasoning + "\n\n" + r
			}
			p.reasoning = &r
		}
	case albedo.KindAssistant:
		if p.calls != nil || p.text != nil {
			p.Flush()
		}
		t := it.Text
		p.text = &t
	case albedo.KindToolCall:
		p.calls = append(p.calls, it)
	case albedo.KindToolOutput:
		if p.text != nil || p.calls != nil {
			p.Flush()
		}
		p.Out = append(p.Out, newObject().str("role", "tool").str("tool_call_id", it.CallID).str("content", it.Text).done())
	case albedo.KindToolImage:
		p.shown = append(p.shown, it)
	case albedo.KindUser:
		p.Flush()
		p.Out = append(p.Out, chatUser(it))
	}
}

// chatToolImages is the user message that carries the images cells
// showed, each after a line naming the call that showed it.
func chatToolImages(shown []albedo.Item) json.RawMessage {
	parts := make([]any, 0, 2*len(shown))
	for _, it := range shown {
		parts = append(parts,
			map[string]any{"type": "text", "text": toolImageNote(it)},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL(it.Image)}})
	}
	return albedo.MustJSON(map[string]any{"role": "user", "content": parts})
}

// chatRaw reports whether a call is sent as its Raw.
func chatRaw(it albedo.Item) bool {
	// Raw JSON is sent as it is, so only when it is JSON (see
	// responsesProjector.add).
	return it.Protocol == albedo.ProtocolChatCompletions && len(it.Raw) > 0 && json.Valid(it.Raw)
}

// appendChatCall appends a call as an element of "tool_calls". A Chat
// Completions call without Raw (the adapter keeps none: id, name and
// arguments are all of it) is written as encoding/json wrote the Raw it
// used to carry, so that its request is byte for byte what it was; a call
// of another protocol is written from its fields as other messages are.
func appendChatCall(b []byte, it albedo.Item) []byte {
	if chatRaw(it) {
		return append(b, it.Raw...)
	}
	str := appendJSONString
	if it.Protocol == albedo.ProtocolChatCompletions {
		str = appendMarshaledString
	}
	b = append(b, `{"id":`...)
	b = str(b, it.CallID)
	b = append(b, `,"type":"function","function":{"name":`...)
	b = str(b, it.ToolName)
	b = append(b, `,"arguments":`...)
	b = str(b, it.Arguments)
	return append(b, "}}"...)
}

func chatUser(it albedo.Item) json.RawMessage {
	text := noteText(it)
	if it.Image == nil {
		return newObject().str("role", "user").str("content", text).done()
	}
	return albedo.MustJSON(map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": text},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL(it.Image)}},
	}})
}
