package albedo

import "encoding/json"

// projectChat builds Chat Completions messages. Consecutive assistant text
// and tool calls of one reply merge into one assistant message. Reasoning
// is not replayed (most Chat Completions providers do not take it back),
// except that items from index reasoningFrom on give their reasoning to the
// assistant message that follows it, as "reasoning_content". Tool messages
// cannot carry images: the images cells showed follow the tool messages of
// their reply as one user message, marked as the tool's.
func projectChat(items []Item, reasoningFrom int) []json.RawMessage {
	var out []json.RawMessage
	var text, reasoning *string
	var calls [][]byte
	var shown []Item
	flushImages := func() {
		if len(shown) > 0 {
			out = append(out, chatToolImages(shown))
			shown = nil
		}
	}
	flush := func() {
		flushImages()
		if text == nil && calls == nil {
			return
		}
		msg := newObject().str("role", "assistant")
		if text != nil {
			msg.str("content", *text)
		} else {
			msg.raw("content", []byte("null"))
		}
		if reasoning != nil {
			msg.str("reasoning_content", *reasoning)
		}
		if calls != nil {
			msg.raw("tool_calls", jsonArray(calls...))
		}
		out = append(out, msg.done())
		text, calls, reasoning = nil, nil, nil
	}
	for i, it := range items {
		switch it.Kind {
		case KindReasoning:
			if i >= reasoningFrom && it.Text != "" {
				if text != nil || calls != nil {
					flush()
				}
				r := it.Text
				if reasoning != nil {
					r = *reasoning + "\n\n" + r
				}
				reasoning = &r
			}
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
			if text != nil || calls != nil {
				flush()
			}
			out = append(out, newObject().str("role", "tool").str("tool_call_id", it.CallID).str("content", it.Text).done())
		case KindToolImage:
			shown = append(shown, it)
		case KindUser:
			flush()
			out = append(out, chatUser(it))
		}
	}
	flush()
	return out
}

// chatToolImages is the user message that carries the images cells
// showed, each after a line naming the call that showed it.
func chatToolImages(shown []Item) json.RawMessage {
	parts := make([]any, 0, 2*len(shown))
	for _, it := range shown {
		parts = append(parts,
			map[string]any{"type": "text", "text": toolImageNote(it)},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL(it.Image)}})
	}
	return mustJSON(map[string]any{"role": "user", "content": parts})
}

func chatCall(it Item) json.RawMessage {
	if it.Protocol == ProtocolChatCompletions && len(it.Raw) > 0 {
		return it.Raw
	}
	fn := newObject().str("name", it.ToolName).str("arguments", it.Arguments).done()
	return newObject().str("id", it.CallID).str("type", "function").raw("function", fn).done()
}

func chatUser(it Item) json.RawMessage {
	text := noteText(it)
	if it.Image == nil {
		return newObject().str("role", "user").str("content", text).done()
	}
	return mustJSON(map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": text},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL(it.Image)}},
	}})
}
