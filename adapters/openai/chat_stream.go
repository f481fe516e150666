package openai

import (
	"encoding/json"
	"log/slog"
	"slices"

	"github.com/albedo-agent/albedo/albedo"
)

// chatChunk is one streamed Chat Completions chunk.
type chatChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			// Content is a string, or (Mistral) a list of typed parts.
			Content          json.RawMessage `json:"content"`
			Refusal          json.RawMessage `json:"refusal"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage `json:"usage"`
	// XGroq carries Groq's usage when it sends none at the top level.
	XGroq *struct {
		Usage *chatUsage `json:"usage"`
	} `json:"x_groq"`
	Error *apiError `json:"error"`
	// Message is set by servers (vLLM up to 0.6) that stream a bare error
	// object {"object": "error", "message": …}; no chunk has one. The
	// "object" member is not decoded: every chunk has it, and reading it
	// would cost a string per chunk.
	Message string `json:"message"`
}

// chatDecoder assembles a Chat Completions reply. Only the first choice
// (index 0) is read; its reasoning and answer are at index 0, and each
// call at its own index.
type chatDecoder struct {
	ep     albedo.Endpoint
	log    *slog.Logger
	a      assembly
	finish string
	usage  albedo.Usage
	// newID names a call whose provider sent no id.
	newID func() string
}

func newChatDecoder(ep albedo.Endpoint, onDelta func(albedo.Delta), log *slog.Logger) *chatDecoder {
	return &chatDecoder{ep: ep, log: log, newID: newCallID, a: newAssembly(ep, onDelta)}
}

// event applies one chunk; "[DONE]" ends the stream. An "error" event
// (llama.cpp sends an "error:" field line), a chunk with an "error" member
// or a bare error object fails it with the provider's message.
func (d *chatDecoder) event(ev sseEvent) (bool, error) {
	if done(ev) {
		return true, nil
	}
	if ev.Type == "error" {
		return false, failure(d.ep, nil, "failed mid-stream: %s", quote(d.ep, providerMessage([]byte(ev.Data))))
	}
	var chunk chatChunk
	if err := decodeEvent(d.ep, d.log, []byte(ev.Data), &chunk); err != nil {
		return false, err
	}
	if chunk.Error != nil {
		return false, failure(d.ep, codeDetails(chunk.Error.Code), "failed mid-stream: %s", quote(d.ep, chunk.Error.text()))
	}
	if chunk.Message != "" && len(chunk.Choices) == 0 {
		return false, failure(d.ep, nil, "failed mid-stream: %s", quote(d.ep, chunk.Message))
	}
	if u := chunk.Usage.usage(); u.Reported() {
		d.usage = u
	} else if chunk.XGroq != nil {
		if u := chunk.XGroq.Usage.usage(); u.Reported() {
			d.usage = u
		}
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue
		}
		delta := choice.Delta
		// Some servers send the same text under both names.
		s := jsonString(delta.ReasoningContent)
		if s == "" {
			s = jsonString(delta.Reasoning)
		}
		d.a.add(0, albedo.KindReasoning, 0, s)
		if len(delta.Content) > 0 && delta.Content[0] == '[' {
			d.contentParts(delta.Content)
		} else {
			d.a.add(0, albedo.KindAssistant, 0, jsonString(delta.Content))
		}
		if s := jsonString(delta.Refusal); s != "" {
			d.a.refused = true
			d.a.add(0, albedo.KindAssistant, 0, s)
		}
		for _, frag := range delta.ToolCalls {
			call := d.call(frag.Index, frag.ID)
			if call.id == "" {
				call.id = frag.ID
			}
			if call.name == "" {
				call.name = frag.Function.Name
			}
			d.a.add(call.index, albedo.KindToolCall, 0, frag.Function.Arguments)
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			d.finish = *choice.FinishReason
		}
	}
	return false, d.a.cap.hit
}

// contentPart is one typed part of a content list. Mistral's reasoning
// models send {type: thinking, thinking: [{type: text, text}]} and
// {type: text, text}.
type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// contentParts applies a content list: text parts are the answer, thinking
// parts reasoning; other parts are skipped.
func (d *chatDecoder) contentParts(raw json.RawMessage) {
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		d.log.Warn("ignoring content that is neither text nor a list of parts", "provider", d.ep.Provider, "error", err)
		return
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			d.a.add(0, albedo.KindAssistant, 0, p.Text)
		case "thinking":
			if s := jsonString(p.Thinking); s != "" {
				d.a.add(0, albedo.KindReasoning, 0, s)
				continue
			}
			var inner []contentPart
			if json.Unmarshal(p.Thinking, &inner) == nil {
				for _, q := range inner {
					d.a.add(0, albedo.KindReasoning, 0, q.Text)
				}
			}
		}
	}
}

// call finds the call a fragment belongs to, starting a new one as needed.
// Fragments are keyed by index; a provider that sends no index starts a
// call with each new id and continues the last call otherwise.
func (d *chatDecoder) call(index *int, id string) *piece {
	if index == nil {
		var last *piece
		for _, p := range d.a.pieces {
			if p.kind == albedo.KindToolCall {
				last = p
			}
		}
		if last != nil && (id == "" || id == last.id) {
			return last
		}
		i := 0
		if last != nil {
			i = last.index + 1
		}
		index = &i
	}
	return d.a.piece(*index, albedo.KindToolCall)
}

// reply returns reasoning, text and tool calls in that order. A stream cut
// before "[DONE]" is accepted once a finish reason arrived; one that ended
// with no finish reason and nothing in it is a failure, not an empty
// answer. Finish reason "length" flags the answer truncated.
func (d *chatDecoder) reply(ended bool) (albedo.ModelReply, error) {
	if !ended && d.finish == "" {
		return albedo.ModelReply{}, failure(d.ep, nil, "stream ended early, before the reply was finished")
	}
	items := d.a.items(albedo.ProtocolChatCompletions, d.newID)
	if d.finish == "" && len(items) == 0 {
		return albedo.ModelReply{}, failure(d.ep, nil, "ended the stream without a reply")
	}
	if d.finish == "length" {
		if len(items) == 0 {
			return albedo.ModelReply{}, failure(d.ep, nil, "hit its output limit before replying")
		}
		flagTruncated(items)
	}
	return albedo.ModelReply{Items: items, Usage: d.usage}, nil
}

// partial returns the reasoning and text that arrived, flagged partial;
// after the cap, the calls' arguments too, as notes (see assembly.partial).
func (d *chatDecoder) partial() albedo.ModelReply {
	return albedo.ModelReply{Items: d.a.partial(albedo.ProtocolChatCompletions, d.newID), Usage: d.usage}
}

// flagTruncated flags the answer of items as cut at the output limit, or their
// last item when there is no answer.
func flagTruncated(items []albedo.Item) {
	i := slices.IndexFunc(items, func(it albedo.Item) bool { return it.Kind == albedo.KindAssistant })
	if i < 0 {
		i = len(items) - 1
	}
	items[i].Flags |= albedo.FlagTruncated
}

// jsonString returns raw as a string when it is a JSON string, else "".
// Providers differ in what they put in optional fields; anything that is
// not text is ignored rather than failing the stream.
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
