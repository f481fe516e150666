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
	refused   bool
	think     *thinkSplitter
	calls     []*chatCall
	finish    string
	usage     albedo.Usage
	// newID names a call whose provider sent no id.
	newID func() string
	// cap cuts the reply at the cap on one item.
	cap replyCap
}

func newChatDecoder(ep albedo.Endpoint, onDelta func(albedo.Delta), log *slog.Logger) *chatDecoder {
	d := &chatDecoder{ep: ep, onDelta: onDelta, log: log, newID: newCallID, cap: newReplyCap(ep)}
	if ep.ThinkTags {
		d.think = &thinkSplitter{}
	}
	return d
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
		d.addReasoning(s)
		if len(delta.Content) > 0 && delta.Content[0] == '[' {
			d.contentParts(delta.Content)
		} else {
			d.addText(jsonString(delta.Content))
		}
		if s := jsonString(delta.Refusal); s != "" {
			d.refused = true
			d.addText(s)
		}
		for _, frag := range delta.ToolCalls {
			call := d.call(frag.Index, frag.ID)
			if call.id == "" {
				call.id = frag.ID
			}
			if call.name == "" {
				call.name = frag.Function.Name
			}
			if a := d.cap.fit("a call's arguments", call.arguments.Len(), frag.Function.Arguments); a != "" {
				call.arguments.WriteString(a)
				d.onDelta(albedo.Delta{Kind: albedo.DeltaToolCall, Text: a})
			}
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			d.finish = *choice.FinishReason
		}
	}
	return false, d.cap.hit
}

// addReasoning keeps and streams a fragment of reasoning, within the cap.
func (d *chatDecoder) addReasoning(s string) {
	d.keepReasoning(d.cap.fit("reasoning", d.reasoning.Len(), s))
}

// keepReasoning keeps and streams a fragment of reasoning.
func (d *chatDecoder) keepReasoning(s string) {
	if s == "" {
		return
	}
	d.reasoning.WriteString(s)
	d.onDelta(albedo.Delta{Kind: albedo.DeltaReasoning, Text: s})
}

// addText keeps and streams a fragment of the answer, within the cap;
// with think tags on, a leading <think>…</think> goes to the reasoning
// instead.
func (d *chatDecoder) addText(s string) {
	have := d.text.Len()
	if d.think != nil {
		have += d.reasoning.Len()
	}
	if s = d.cap.fit("an answer", have, s); s == "" {
		return
	}
	if d.think != nil {
		d.think.feed(s, d.keepReasoning, d.addAnswer)
		return
	}
	d.addAnswer(s)
}

func (d *chatDecoder) addAnswer(s string) {
	if s == "" {
		return
	}
	d.text.WriteString(s)
	d.onDelta(albedo.Delta{Kind: albedo.DeltaText, Text: s})
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
			d.addText(p.Text)
		case "thinking":
			if s := jsonString(p.Thinking); s != "" {
				d.addReasoning(s)
				continue
			}
			var inner []contentPart
			if json.Unmarshal(p.Thinking, &inner) == nil {
				for _, q := range inner {
					d.addReasoning(q.Text)
				}
			}
		}
	}
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
// before "[DONE]" is accepted once a finish reason arrived; one that ended
// with no finish reason and nothing in it is a failure, not an empty
// answer. Finish reason "length" flags the answer truncated.
func (d *chatDecoder) reply(ended bool) (albedo.ModelReply, error) {
	if !ended && d.finish == "" {
		return albedo.ModelReply{}, failure(d.ep, nil, "stream ended early, before the reply was finished")
	}
	d.flushThink()
	if d.finish == "" && d.text.Len() == 0 && d.reasoning.Len() == 0 && len(d.calls) == 0 {
		return albedo.ModelReply{}, failure(d.ep, nil, "ended the stream without a reply")
	}
	items := d.textItems()
	sort.SliceStable(d.calls, func(i, j int) bool { return d.calls[i].index < d.calls[j].index })
	for _, c := range d.calls {
		if c.id == "" {
			c.id = d.newID()
		}
		// No Raw: a call's native form is its id, name and arguments,
		// which the projection writes from the item's fields, so long
		// arguments are neither repeated nor stored twice.
		items = append(items, albedo.Item{
			Kind: albedo.KindToolCall, CallID: c.id, ToolName: c.name, Arguments: c.arguments.String(),
			Protocol: albedo.ProtocolChatCompletions,
		})
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
// after the cap, the calls' arguments too, as notes (see cutCall).
func (d *chatDecoder) partial() albedo.ModelReply {
	d.flushThink()
	items := d.textItems()
	if d.cap.hit != nil {
		for _, c := range d.calls {
			items = append(items, cutCall(c.name, c.arguments.String(), albedo.ProtocolChatCompletions))
		}
	}
	for i := range items {
		items[i].Flags |= albedo.FlagPartial
	}
	return albedo.ModelReply{Items: items, Usage: d.usage}
}

// textItems returns the reasoning and the answer as items. They carry no
// Raw: their native form follows from their text alone, and the projection
// builds it from there, so a long answer is not held and stored twice.
func (d *chatDecoder) textItems() []albedo.Item {
	var items []albedo.Item
	if s := d.reasoning.String(); s != "" {
		items = append(items, albedo.Item{
			Kind: albedo.KindReasoning, Text: s, Protocol: albedo.ProtocolChatCompletions,
		})
	}
	if s := d.text.String(); s != "" {
		it := albedo.Item{
			Kind: albedo.KindAssistant, Text: s, Protocol: albedo.ProtocolChatCompletions,
		}
		if d.refused {
			it.Flags |= albedo.FlagRefusal
		}
		items = append(items, it)
	}
	return items
}

// flushThink ends an open <think> block at the end of the stream.
func (d *chatDecoder) flushThink() {
	if d.think != nil {
		d.think.end(d.keepReasoning, d.addAnswer)
	}
}

// flagTruncated flags the answer of items as cut at the output limit, or their
// last item when there is no answer.
func flagTruncated(items []albedo.Item) {
	for i := range items {
		if items[i].Kind == albedo.KindAssistant {
			items[i].Flags |= albedo.FlagTruncated
			return
		}
	}
	items[len(items)-1].Flags |= albedo.FlagTruncated
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
