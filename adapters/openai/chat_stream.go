package openai

import (
	"encoding/json"
	"log/slog"
	"sort"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// chatChunk is one streamed Chat Completions chunk.
type chatChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          json.RawMessage `json:"content"`
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
}

// chatCall is a tool call being assembled from its fragments.
type chatCall struct {
	index     int
	id        string
	name      string
	arguments strings.Builder
}

// chatDecoder assembles a Chat Completions reply. Only the first choice
// (index 0) is read.
type chatDecoder struct {
	ep        albedo.Endpoint
	onDelta   func(albedo.Delta)
	log       *slog.Logger
	text      strings.Builder
	reasoning strings.Builder
	calls     []*chatCall
	finish    string
	usage     albedo.Usage
	// newID names a call whose provider sent no id.
	newID func() string
}

func newChatDecoder(ep albedo.Endpoint, onDelta func(albedo.Delta), log *slog.Logger) *chatDecoder {
	return &chatDecoder{ep: ep, onDelta: onDelta, log: log, newID: newCallID}
}

// event applies one chunk; "[DONE]" ends the stream.
func (d *chatDecoder) event(ev sseEvent) (bool, error) {
	if ev.done() {
		return true, nil
	}
	var chunk chatChunk
	if err := decodeEvent(d.ep, d.log, ev.Data, &chunk); err != nil {
		return false, err
	}
	if chunk.Error != nil {
		return false, failure(d.ep, nil, "failed mid-stream: %s", quote(d.ep, chunk.Error.text()))
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
		if s != "" {
			d.reasoning.WriteString(s)
			d.onDelta(albedo.Delta{Kind: albedo.DeltaReasoning, Text: s})
		}
		if s := jsonString(delta.Content); s != "" {
			d.text.WriteString(s)
			d.onDelta(albedo.Delta{Kind: albedo.DeltaText, Text: s})
		}
		for _, frag := range delta.ToolCalls {
			call := d.call(frag.Index, frag.ID)
			if call.id == "" {
				call.id = frag.ID
			}
			if call.name == "" {
				call.name = frag.Function.Name
			}
			if a := frag.Function.Arguments; a != "" {
				call.arguments.WriteString(a)
				d.onDelta(albedo.Delta{Kind: albedo.DeltaToolCall, Text: a})
			}
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			d.finish = *choice.FinishReason
		}
	}
	return false, nil
}

// call finds the call a fragment belongs to, starting a new one as needed.
// Fragments are keyed by index; a provider that sends no index starts a
// call with each new id and continues the last call otherwise.
func (d *chatDecoder) call(index *int, id string) *chatCall {
	if index == nil {
		last := len(d.calls) - 1
		if last >= 0 && (id == "" || id == d.calls[last].id) {
			return d.calls[last]
		}
		i := 0
		if last >= 0 {
			i = d.calls[last].index + 1
		}
		index = &i
	}
	for _, c := range d.calls {
		if c.index == *index {
			return c
		}
	}
	c := &chatCall{index: *index}
	d.calls = append(d.calls, c)
	return c
}

// reply returns reasoning, text and tool calls in that order. A stream cut
// before "[DONE]" is accepted once a finish reason arrived.
func (d *chatDecoder) reply(ended bool) (albedo.ModelReply, error) {
	if !ended && d.finish == "" {
		return albedo.ModelReply{}, failure(d.ep, nil, "stream ended early, before the reply was finished")
	}
	var items []albedo.Item
	if s := d.reasoning.String(); s != "" {
		items = append(items, albedo.Item{
			Kind: albedo.KindReasoning, Text: s, Protocol: albedo.ProtocolChatCompletions,
			Raw: mustMarshal(struct {
				ReasoningContent string `json:"reasoning_content"`
			}{s}),
		})
	}
	if s := d.text.String(); s != "" {
		items = append(items, albedo.Item{
			Kind: albedo.KindAssistant, Text: s, Protocol: albedo.ProtocolChatCompletions,
			Raw: mustMarshal(chatMessage{Role: "assistant", Content: s}),
		})
	}
	sort.SliceStable(d.calls, func(i, j int) bool { return d.calls[i].index < d.calls[j].index })
	for _, c := range d.calls {
		if c.id == "" {
			c.id = d.newID()
		}
		args := c.arguments.String()
		items = append(items, albedo.Item{
			Kind: albedo.KindToolCall, CallID: c.id, ToolName: c.name, Arguments: args,
			Protocol: albedo.ProtocolChatCompletions,
			Raw:      mustMarshal(chatToolCall{ID: c.id, Type: "function", Function: chatCallFunction{Name: c.name, Arguments: args}}),
		})
	}
	return albedo.ModelReply{Items: items, Usage: d.usage}, nil
}

// chatToolCall is the native form of one tool call in an assistant message.
type chatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function chatCallFunction `json:"function"`
}

type chatCallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
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
