package albedo

import "encoding/json"

// projectResponses builds Responses input items. Reasoning made by a
// Responses provider replays as it came; reasoning from elsewhere is not
// sent.
func projectResponses(items []Item) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(items))
	for i, it := range items {
		native := it.Protocol == ProtocolResponses && len(it.Raw) > 0
		switch it.Kind {
		case KindReasoning:
			if native && replayableReasoning(it.Raw) {
				out = append(out, it.Raw)
			}
		case KindAssistant:
			if native {
				out = append(out, it.Raw)
				continue
			}
			out = append(out, ResponsesMessage(it.Text, "completed"))
		case KindToolCall:
			if native {
				out = append(out, it.Raw)
				continue
			}
			out = append(out, newObject().str("type", "function_call").str("call_id", it.CallID).
				str("name", it.ToolName).str("arguments", it.Arguments).done())
		case KindToolOutput:
			out = append(out, responsesOutput(it, shownAfter(items[i+1:], it.CallID)))
		case KindUser:
			out = append(out, responsesUser(it))
		}
	}
	return out
}

// responsesOutput is a function_call_output: its text, or, when the cell
// showed images, its text and the images as input_image parts.
func responsesOutput(it Item, shown []Item) json.RawMessage {
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

// shownAfter returns the images of call at the start of items, where
// pairCalls put them.
func shownAfter(items []Item, call string) []Item {
	n := 0
	for n < len(items) && items[n].Kind == KindToolImage && items[n].CallID == call {
		n++
	}
	return items[:n]
}

func responsesUser(it Item) json.RawMessage {
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
