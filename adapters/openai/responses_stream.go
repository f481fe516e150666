package openai

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// responsesEvent is one streamed Responses event; each type fills some of
// the fields.
type responsesEvent struct {
	Type         string          `json:"type"`
	Delta        string          `json:"delta"`
	OutputIndex  int             `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Item         json.RawMessage `json:"item"`
	Response     *struct {
		Output            []json.RawMessage `json:"output"`
		Error             *apiError         `json:"error"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Usage *responsesUsage `json:"usage"`
	} `json:"response"`
	// An "error" event carries its message at the top level or in error.
	Message string    `json:"message"`
	Code    any       `json:"code"`
	Error   *apiError `json:"error"`
}

// outputItem is the part of a Responses output item albedo reads.
type outputItem struct {
	Type string `json:"type"`
	// Phase is "commentary" or "final_answer" on messages of models that
	// write both.
	Phase     string `json:"phase"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
}

// responsesDecoder assembles a Responses reply. The output of the final
// response event is authoritative; finished items and then deltas are
// fallbacks for providers that send less.
type responsesDecoder struct {
	ep    albedo.Endpoint
	log   *slog.Logger
	final []json.RawMessage
	done  map[int]json.RawMessage
	// a holds the deltas, indexed by output index.
	a       assembly
	added   map[int]outputItem
	usage   albedo.Usage
	stopped string
	// finished is set by response.completed or response.incomplete.
	finished bool
	// newID names a call whose provider sent no id.
	newID func() string
}

func newResponsesDecoder(ep albedo.Endpoint, onDelta func(albedo.Delta), log *slog.Logger) *responsesDecoder {
	return &responsesDecoder{ep: ep, log: log, newID: newCallID, done: map[int]json.RawMessage{}, added: map[int]outputItem{},
		a: newAssembly(ep, onDelta)}
}

// thinkItems splits a leading <think>…</think> off the first assistant
// message: the block becomes a reasoning item before it.
func (d *responsesDecoder) thinkItems(items []albedo.Item) []albedo.Item {
	for i, it := range items {
		if it.Kind != albedo.KindAssistant {
			continue
		}
		var reasoning, answer strings.Builder
		var s thinkSplitter
		s.feed(it.Text, func(x string) { reasoning.WriteString(x) }, func(x string) { answer.WriteString(x) })
		s.end(func(x string) { reasoning.WriteString(x) }, func(x string) { answer.WriteString(x) })
		if reasoning.Len() == 0 {
			return items
		}
		r := reasoning.String()
		// Neither keeps a Raw: the projection writes the message from its
		// text, and reasoning without encrypted content is not replayed.
		think := albedo.Item{Kind: albedo.KindReasoning, Text: r, Protocol: albedo.ProtocolResponses}
		it.Text, it.Raw = answer.String(), nil
		return append(append(slices.Clip(items[:i]), think, it), items[i+1:]...)
	}
	return items
}

// event applies one event; response.completed and response.incomplete end
// the stream, response.failed and error fail it.
func (d *responsesDecoder) event(ev sseEvent) (bool, error) {
	if done(ev) {
		return true, nil
	}
	var e responsesEvent
	if err := decodeEvent(d.ep, d.log, []byte(ev.Data), &e); err != nil {
		return false, err
	}
	if e.Type == "" {
		e.Type = ev.Type
	}
	end, err := d.apply(e)
	if err == nil && d.a.cap.hit != nil {
		end, err = false, d.a.cap.hit
	}
	return end, err
}

// apply applies one decoded event.
func (d *responsesDecoder) apply(e responsesEvent) (bool, error) {
	switch e.Type {
	case "response.output_text.delta", "response.refusal.delta":
		d.a.add(e.OutputIndex, albedo.KindAssistant, 0, e.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		d.a.add(e.OutputIndex, albedo.KindReasoning, e.SummaryIndex, e.Delta)
	case "response.function_call_arguments.delta":
		d.a.add(e.OutputIndex, albedo.KindToolCall, 0, e.Delta)
	case "response.output_item.added":
		var it outputItem
		if json.Unmarshal(e.Item, &it) == nil && it.Type == "function_call" {
			d.added[e.OutputIndex] = it
		}
	case "response.output_item.done":
		if len(e.Item) > 0 {
			d.done[e.OutputIndex] = e.Item
		}
	case "response.completed", "response.incomplete":
		d.finished = true
		if r := e.Response; r != nil {
			d.final = r.Output
			d.usage = r.Usage.usage()
			if e.Type == "response.incomplete" {
				d.stopped = "incomplete"
				if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
					d.stopped = r.IncompleteDetails.Reason
				}
				d.log.Warn("model reply is incomplete", "provider", d.ep.Provider, "reason", d.stopped)
			}
		}
		return true, nil
	case "response.failed":
		msg := "no reason given"
		var code any
		if e.Response != nil && e.Response.Error.text() != "" {
			msg = e.Response.Error.text()
			code = e.Response.Error.Code
		}
		return false, failure(d.ep, codeDetails(code), "failed the reply: %s", quote(d.ep, msg))
	case "error":
		msg := e.Message
		if msg == "" {
			msg = e.Error.text()
		}
		if msg == "" && e.Code != nil {
			msg = fmt.Sprint(e.Code)
		}
		code := e.Code
		if code == nil && e.Error != nil {
			code = e.Error.Code
		}
		return false, failure(d.ep, codeDetails(code), "failed mid-stream: %s", quote(d.ep, msg))
	}
	return false, nil
}

// reply builds the reply from the first source that has items: the final
// response's output, the finished items, the deltas.
func (d *responsesDecoder) reply(ended bool) (albedo.ModelReply, error) {
	if !ended {
		return albedo.ModelReply{}, failure(d.ep, nil, "stream ended early, before the reply was finished")
	}
	// The output items by their output index.
	raws := d.done
	if len(d.final) > 0 {
		raws = make(map[int]json.RawMessage, len(d.final))
		for i, raw := range d.final {
			raws[i] = raw
		}
	}
	if !d.finished && len(raws) == 0 && len(d.a.pieces) == 0 {
		// A bare [DONE] after nothing is not an empty answer.
		return albedo.ModelReply{}, failure(d.ep, nil, "ended the stream without a reply")
	}
	var items []albedo.Item
	for _, i := range slices.Sorted(maps.Keys(raws)) {
		if it, ok := d.item(raws[i], i); ok {
			items = append(items, it)
		}
	}
	if len(raws) == 0 {
		items = d.fromDeltas()
	}
	if d.ep.ThinkTags {
		items = d.thinkItems(items)
	}
	switch {
	case d.stopped == "":
	case len(items) == 0:
		return albedo.ModelReply{}, failure(d.ep, nil, "stopped before replying: %s", d.stopped)
	case d.stopped == "max_output_tokens":
		flagTruncated(items)
	default:
		return albedo.ModelReply{}, failure(d.ep, nil, "stopped before finishing the reply: %s", d.stopped)
	}
	return albedo.ModelReply{Items: items, Usage: d.usage}, nil
}

// partial returns the reasoning and text that streamed, flagged partial;
// after the cap, the calls' arguments too, as notes (see assembly.partial).
func (d *responsesDecoder) partial() albedo.ModelReply {
	return albedo.ModelReply{Items: d.a.partial(albedo.ProtocolResponses, d.newID), Usage: d.usage}
}

// item converts one output item as received, the index-th of the
// output; unknown types are skipped. Its Raw is the item less its id (a
// request that stores nothing must not name what the provider stored).
func (d *responsesDecoder) item(raw json.RawMessage, index int) (albedo.Item, bool) {
	var o outputItem
	if err := json.Unmarshal(raw, &o); err != nil {
		d.log.Warn("skipping a malformed output item", "provider", d.ep.Provider, "error", err)
		return albedo.Item{}, false
	}
	raw = withoutID(raw)
	it := albedo.Item{Protocol: albedo.ProtocolResponses}
	switch o.Type {
	case "reasoning":
		it.Kind = albedo.KindReasoning
		parts := make([]string, 0, len(o.Summary))
		for _, s := range o.Summary {
			parts = append(parts, s.Text)
		}
		if len(parts) == 0 {
			// Open models may send their reasoning as content instead.
			for _, c := range o.Content {
				parts = append(parts, c.Text)
			}
		}
		it.Text = strings.Join(parts, "\n\n")
	case "message":
		it.Kind = albedo.KindAssistant
		var parts []string
		refused := false
		for _, c := range o.Content {
			switch c.Type {
			case "output_text":
				parts = append(parts, c.Text)
			case "refusal":
				parts = append(parts, c.Refusal)
				refused = true
			}
		}
		it.Text = strings.Join(parts, "")
		if it.Text == "" {
			return albedo.Item{}, false
		}
		if refused {
			it.Flags |= albedo.FlagRefusal
		}
		if o.Phase == "commentary" {
			it.Flags |= albedo.FlagCommentary
		}
		d.differs(it.Text, index, albedo.KindAssistant)
		raw = completeMessage(raw)
	case "function_call":
		it.Kind = albedo.KindToolCall
		it.CallID, it.ToolName, it.Arguments = o.CallID, o.Name, o.Arguments
		d.differs(it.Arguments, index, albedo.KindToolCall)
		if it.CallID == "" {
			it.CallID = d.newID()
			raw = withField(raw, "call_id", it.CallID)
		}
	default:
		// Albedo does not act on it (a search the provider ran itself, say),
		// but the user sees that it happened.
		it.Kind, it.ToolName, it.Text = albedo.KindNote, o.Type, describeItem(o.Type, raw)
	}
	it.Raw = raw
	return it, true
}

// differs warns when the final text of an item is not what streamed for
// it: the final text is the one kept. An answer split by think tags is
// not compared.
func (d *responsesDecoder) differs(final string, index int, kind albedo.ItemKind) {
	for _, p := range d.a.pieces {
		if p.index != index || p.kind != kind || kind == albedo.KindAssistant && d.a.think != nil {
			continue
		}
		if streamed := p.text.String(); streamed != "" && streamed != final {
			d.log.Warn("the finished output item differs from what streamed; keeping the finished one",
				"provider", d.ep.Provider, "output_index", index, "bytes", len(final))
		}
		return
	}
}

// fromDeltas builds items from the streamed fragments, in output order,
// each call named as its output_item.added event said.
func (d *responsesDecoder) fromDeltas() []albedo.Item {
	for _, p := range d.a.pieces {
		if meta, ok := d.added[p.index]; ok && p.kind == albedo.KindToolCall {
			p.id, p.name = meta.CallID, meta.Name
		}
	}
	return d.a.items(albedo.ProtocolResponses, d.newID)
}

// withField returns the JSON object raw with key set to value.
func withField(raw json.RawMessage, key, value string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	obj[key] = mustMarshal(value)
	return mustMarshal(obj)
}
