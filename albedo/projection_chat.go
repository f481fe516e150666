package albedo

import "encoding/json"

// projectChat builds Chat Completions messages. Consecutive assistant text
// and tool calls of one reply merge into one assistant message; reasoning is
// not replayed (Chat Completions providers do not take it back).
func projectChat(items []Item) []json.RawMessage {
	var out []json.RawMessage
	var text *string
	var calls []json.RawMessage
	flush := func() {
		if text == nil && calls == nil {
			return
		}
		msg := map[string]any{"role": "assistant"}
		if text != nil {
			msg["content"] = *text
		} else {
			msg["content"] = nil
		}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		out = append(out, mustJSON(msg))
		text, calls = nil, nil
	}
	for _, it := range items {
		switch it.Kind {
		case KindReasoning:
			continue
		case KindAssistant:
			if calls != nil || text != nil {
				flush()
			}
			t := it.Text
			text = &t
		case KindToolCall:
			calls = append(calls, chatCall(it))
		case KindToolOutput:
			flush()
			out = append(out, mustJSON(map[string]any{"role": "tool", "tool_call_id": it.CallID, "content": it.Text}))
		case KindUser:
			flush()
			out = append(out, chatUser(it))
		}
	}
	flush()
	return out
}

func chatCall(it Item) json.RawMessage {
	if it.Protocol == ProtocolChatCompletions && len(it.Raw) > 0 {
		return it.Raw
	}
	return mustJSON(map[string]any{
		"id":   it.CallID,
		"type": "function",
		"function": map[string]any{
			"name":      it.ToolName,
			"arguments": it.Arguments,
		},
	})
}

func chatUser(it Item) json.RawMessage {
	text := noteText(it)
	if it.Image == nil {
		return mustJSON(map[string]any{"role": "user", "content": text})
	}
	return mustJSON(map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": text},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL(it.Image)}},
	}})
}
