package projection

import (
	"encoding/json"

	"github.com/albedo-agent/albedo/albedo"
)

// projectResponses builds Responses input items. Reasoning made by a
// Responses provider replays as it came; reasoning from elsewhere is not
// sent.
func projectResponses(items []albedo.Item) []json.RawMessage {
	p := ResponsesProjector{Out: make([]json.RawMessage, 0, len(items))}
	for _, it := range items {
		p.Add(it)
	}
	p.Settle()
	return p.Out
}

// ResponsesProjector is projectResponses one item at a time. An output
// waits for the images that follow it (pairCalls puts a cell's images
// right after its output) until the next other item or settle.
type ResponsesProjector struct {
	Out     []json.RawMessage
	pending *albedo.Item
	shown   []albedo.Item
}

// Settle projects the output that waits for its images, if any.
func (p *ResponsesProjector) Settle() {
	if p.pending != nil {
		p.Out = append(p.Out, responsesOutput(*p.pending, p.shown))
		p.pending, p.shown = nil, nil
	}
}

// Add projects the next item.
func (p *ResponsesProjector) Add(it albedo.Item) {
	if p.pending != nil {
		if it.Kind == albedo.KindToolImage && it.CallID == p.pending.CallID {
			p.shown = append(p.shown, it)
			return
		}
		p.Settle()
	}
	native := nativeResponses(it)
	switch it.Kind {
	case albedo.KindReasoning:
		if native && replayableReasoning(it.Raw) {
			p.Out = append(p.Out, withText(it))
		}
	case albedo.KindAssistant:
		if native {
			p.Out = append(p.Out, withText(it))
			return
		}
		status := "completed"
		if it.Flags&albedo.FlagPartial != 0 {
			status = "incomplete"
		}
		p.Out = append(p.Out, ResponsesMessage(it.Text, status))
	case albedo.KindToolCall:
		if native {
			p.Out = append(p.Out, withText(it))
			return
		}
		p.Out = append(p.Out, newObject().str("type", "function_call").str("call_id", it.CallID).
			str("name", it.ToolName).str("arguments", it.Arguments).done())
	case albedo.KindToolOutput:
		p.pending = &it
	case albedo.KindUser:
		p.Out = append(p.Out, responsesUser(it))
	}
}

// nativeResponses reports whether it replays its Raw (withText) to a
// Responses provider. Raw JSON is sent as it is, so only when it is JSON;
// a provider encoded it, but a store may hold anything.
func nativeResponses(it albedo.Item) bool {
	return it.Protocol == albedo.ProtocolResponses && len(it.Raw) > 0 && json.Valid(it.Raw)
}

// withText returns it.Raw with the item's text put back where an earlier
// version's adapter left it out (FlagRawWithoutText): in the one content
// part of a message, the one summary part of reasoning, or in a call's
// arguments.
func withText(it albedo.Item) json.RawMessage {
	if it.Flags&albedo.FlagRawWithoutText == 0 {
		return it.Raw
	}
	text, list, member := it.Text, "content", "text"
	switch it.Kind {
	case albedo.KindReasoning:
		list = "summary"
	case albedo.KindToolCall:
		text, list, member = it.Arguments, "", "arguments"
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(it.Raw, &obj) != nil {
		return it.Raw
	}
	holder := obj
	var parts []map[string]json.RawMessage
	if list != "" {
		if json.Unmarshal(obj[list], &parts) != nil || len(parts) != 1 {
			return it.Raw
		}
		holder = parts[0]
	}
	holder[member] = albedo.MustJSON(text)
	if list != "" {
		obj[list] = albedo.MustJSON(parts)
	}
	return albedo.MustJSON(obj)
}

// responsesOutput is a function_call_output: its text, or, when the cell
// showed images, its text and the images as input_image parts.
func responsesOutput(it albedo.Item, shown []albedo.Item) json.RawMessage {
	out := newObject().str("type", "function_call_output").str("call_id", it.CallID)
	if len(shown) == 0 {
		return out.str("output", it.Text).done()
	}
	parts := [][]byte{newObject().str("type", "input_text").str("text", it.Text).done()}
	for _, img := range shown {
		parts = append(parts, newObject().str("type", "input_image").str("image_url", dataURL(img.Image)).done())
	}
	return out.raw("output", jsonArray(parts...)).done()
}

func responsesUser(it albedo.Item) json.RawMessage {
	parts := [][]byte{newObject().str("type", "input_text").str("text", noteText(it)).done()}
	if it.Image != nil {
		parts = append(parts, newObject().str("type", "input_image").str("image_url", dataURL(it.Image)).str("detail", "auto").done())
	}
	return newObject().str("type", "message").str("role", "user").raw("content", jsonArray(parts...)).done()
}

// ResponsesMessage is a Responses assistant message holding text, with the
// fields the published schema asks of one (less the id, which a request
// that stores nothing must not carry); status is "completed" or
// "incomplete".
func ResponsesMessage(text, status string) json.RawMessage {
	part := newObject().str("type", "output_text").str("text", text).
		raw("annotations", []byte("[]")).raw("logprobs", []byte("[]")).done()
	return newObject().str("type", "message").str("role", "assistant").str("status", status).raw("content", jsonArray(part)).done()
}

// replayableReasoning reports whether a Responses reasoning item can be sent
// back: without its encrypted content a provider that stores nothing cannot
// resolve it and refuses the whole request.
func replayableReasoning(raw json.RawMessage) bool {
	var item struct {
		EncryptedContent *string `json:"encrypted_content"`
	}
	return json.Unmarshal(raw, &item) == nil && item.EncryptedContent != nil && *item.EncryptedContent != ""
}
