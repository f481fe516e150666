package albedo

import "encoding/json"

// projectResponses builds Responses input items. Reasoning made by a
// Responses provider replays as it came; reasoning from elsewhere is not
// sent.
func projectResponses(items []Item) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(items))
	for _, it := range items {
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
			out = append(out, mustJSON(map[string]any{
				"type": "message", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": it.Text}},
			}))
		case KindToolCall:
			if native {
				out = append(out, it.Raw)
				continue
			}
			out = append(out, mustJSON(map[string]any{
				"type": "function_call", "call_id": it.CallID,
				"name": it.ToolName, "arguments": it.Arguments,
			}))
		case KindToolOutput:
			out = append(out, mustJSON(map[string]any{
				"type": "function_call_output", "call_id": it.CallID, "output": it.Text,
			}))
		case KindUser:
			out = append(out, responsesUser(it))
		}
	}
	return out
}

func responsesUser(it Item) json.RawMessage {
	parts := []any{map[string]any{"type": "input_text", "text": noteText(it)}}
	if it.Image != nil {
		parts = append(parts, map[string]any{"type": "input_image", "image_url": dataURL(it.Image)})
	}
	return mustJSON(map[string]any{"type": "message", "role": "user", "content": parts})
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
