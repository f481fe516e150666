package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestResponsesStream(t *testing.T) {
	tests := []struct {
		name      string
		blocks    []string
		want      []wantItem
		usage     albedo.Usage
		reasoning string
		text      string
		args      string
		err       string
		logged    string
	}{
		{
			name:   "reasoning and a call whose delta index differs from the output",
			blocks: responsesToolCall(),
			want: []wantItem{
				{Kind: albedo.KindReasoning, Text: "reasoning about the task", Raw: rsItem},
				{Kind: albedo.KindToolCall, CallID: "call-1", ToolName: "python", Arguments: pythonArgs, Raw: fcItem},
			},
			usage:     albedo.Usage{InputTokens: new(int64(10)), OutputTokens: new(int64(20))},
			reasoning: "reasoning about the task",
			args:      pythonArgs,
		},
		{
			name:   "text answer with event lines",
			blocks: responsesText(),
			want:   []wantItem{{Kind: albedo.KindAssistant, Text: "finished", Raw: msgItem}},
			usage:  albedo.Usage{InputTokens: new(int64(5)), OutputTokens: new(int64(1))},
			text:   "finished",
		},
		{
			name: "summary parts joined, refusal kept, unknown items shown as notes",
			blocks: []string{
				data(`{"type":"response.reasoning_text.delta","output_index":0,"delta":"r"}`),
				data(`{"type":"response.completed","response":{"output":[` +
					`{"type":"reasoning","summary":[{"type":"summary_text","text":"one"},{"type":"summary_text","text":"two"}]},` +
					`{"type":"web_search_call","id":"ws1","status":"completed"},` +
					`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"refusal","refusal":"b"}]}]}}`),
			},
			want: []wantItem{
				{Kind: albedo.KindReasoning, Text: "one\n\ntwo"},
				{Kind: albedo.KindNote, Text: "web search call (completed)", ToolName: "web_search_call"},
				{Kind: albedo.KindAssistant, Text: "ab"},
			},
			reasoning: "r",
		},
		{
			name: "finished items when the final output is missing",
			blocks: []string{
				data(`{"type":"response.output_item.done","output_index":1,"item":` + fcItem + `}`),
				data(`{"type":"response.output_item.done","output_index":0,"item":` + rsItem + `}`),
				data(`{"type":"response.completed","response":{"usage":{"input_tokens":1,"output_tokens":2}}}`),
			},
			want: []wantItem{
				{Kind: albedo.KindReasoning, Text: "reasoning about the task", Raw: rsItem},
				{Kind: albedo.KindToolCall, CallID: "call-1", ToolName: "python", Arguments: pythonArgs, Raw: fcItem},
			},
			usage: albedo.Usage{InputTokens: new(int64(1)), OutputTokens: new(int64(2))},
		},
		{
			name: "deltas when nothing else came",
			blocks: []string{
				data(`{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"c9","name":"python","arguments":""}}`),
				data(`{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"x"}`),
				data(`{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"y"}`),
				data(`{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{}"}`),
				data(`{"type":"response.completed","response":{"output":[]}}`),
			},
			want: []wantItem{
				{Kind: albedo.KindReasoning, Text: "x\n\ny"},
				{Kind: albedo.KindToolCall, CallID: "c9", ToolName: "python", Arguments: "{}"},
			},
			reasoning: "xy",
			args:      "{}",
		},
		{
			name: "incomplete keeps what came",
			blocks: []string{
				data(`{"type":"response.output_text.delta","output_index":0,"delta":"par"}`),
				data(`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"par"}]}]}}`),
			},
			want:   []wantItem{{Kind: albedo.KindAssistant, Text: "par"}},
			text:   "par",
			logged: "max_output_tokens",
		},
		{
			name:   "incomplete with nothing",
			blocks: []string{data(`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"}}}`)},
			err:    "content_filter",
		},
		{
			name:   "failed",
			blocks: []string{data(`{"type":"response.created"}`), data(`{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model crashed"}}}`)},
			err:    "The model crashed",
		},
		{
			name:   "error event",
			blocks: []string{"event: error\n" + data(`{"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null}`)},
			err:    "Slow down",
		},
		{
			name:   "error event with nested error",
			blocks: []string{data(`{"type":"error","error":{"type":"invalid_request_error","message":"bad input"}}`)},
			err:    "bad input",
		},
		{
			name:   "type from the event line",
			blocks: []string{"event: response.completed\n" + data(`{"response":{"output":[`+msgItem+`]}}`)},
			want:   []wantItem{{Kind: albedo.KindAssistant, Text: "finished"}},
		},
		{
			name:   "end before completion",
			blocks: responsesToolCall()[:4],
			err:    "stream ended early",
		},
		{
			name: "call without call_id gets one",
			blocks: []string{
				data(`{"type":"response.completed","response":{"output":[{"type":"function_call","name":"python","arguments":"{}"}]}}`),
			},
			want: []wantItem{{Kind: albedo.KindToolCall, ToolName: "python", Arguments: "{}"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, tt.blocks...) })
			var logs bytes.Buffer
			c := New(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			var got deltas
			reply, err := c.Stream(context.Background(), albedo.ModelRequest{Endpoint: endpoint(p, albedo.ProtocolResponses)}, got.add)
			if tt.err != "" {
				mustContain(t, errorText(t, err), tt.err)
				if albedo.ErrorCode(err) != CodeProviderError {
					t.Errorf("code = %q", albedo.ErrorCode(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				if tt.want[i].Kind == albedo.KindToolCall && tt.want[i].CallID == "" {
					tt.want[i].CallID = reply.Items[i].CallID
					if !strings.HasPrefix(tt.want[i].CallID, "call_") {
						t.Errorf("generated call id %q", tt.want[i].CallID)
					}
					if !strings.Contains(string(reply.Items[i].Raw), tt.want[i].CallID) {
						t.Errorf("raw %s lacks the generated call id", reply.Items[i].Raw)
					}
				}
			}
			checkItems(t, reply.Items, albedo.ProtocolResponses, tt.want)
			if !reflect.DeepEqual(reply.Usage, tt.usage) {
				t.Errorf("usage = %+v, want %+v", reply.Usage, tt.usage)
			}
			if got.text[albedo.DeltaReasoning] != tt.reasoning || got.text[albedo.DeltaText] != tt.text || got.text[albedo.DeltaToolCall] != tt.args {
				t.Errorf("deltas = %q", got.text)
			}
			if tt.logged != "" {
				mustContain(t, logs.String(), tt.logged)
			}
		})
	}
}

func TestResponsesRawKeptExactly(t *testing.T) {
	// Key order, spacing and unknown fields of an output item survive;
	// its id, which a request that stores nothing must not send, does not.
	item := `{"type": "function_call",  "status":"completed", "zeta": [1, 2], "call_id":"c1","name":"python","arguments":"{}"}`
	sent := strings.TrimSuffix(item, "}") + `,"id":"fc1"}`
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) {
		streamEvents(w, data(`{"type":"response.completed","response":{"output":[`+sent+`]}}`))
	})
	reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: endpoint(p, albedo.ProtocolResponses)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(reply.Items[0].Raw); got != item {
		t.Errorf("raw = %s, want %s", got, item)
	}
}

func TestResponsesRequest(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}}}`)
	input := []json.RawMessage{json.RawMessage(`{"role":"user","content":[{"type":"input_text","text":"hello"}]}`)}
	tests := []struct {
		name         string
		instructions string
		effort       string
		input        []json.RawMessage
		tools        []albedo.Tool
		want         map[string]any
	}{
		{
			name: "everything", instructions: "be brief", effort: "low", input: input,
			tools: []albedo.Tool{{Name: "python", Description: "run code", Parameters: schema}},
			want: map[string]any{
				"instructions": "be brief",
				"reasoning":    map[string]any{"effort": "low", "summary": "auto"},
				"include":      []any{"reasoning.encrypted_content"},
				"tools":        []any{map[string]any{"type": "function", "name": "python", "description": "run code", "parameters": map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string"}}}, "strict": false}},
				"input":        []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hello"}}}},
			},
		},
		{
			name: "bare",
			want: map[string]any{"input": []any{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, responsesText()...) })
			ep := endpoint(p, albedo.ProtocolResponses)
			ep.Effort = tt.effort
			req := albedo.ModelRequest{Endpoint: ep, Instructions: tt.instructions, Input: tt.input, Tools: tt.tools}
			if _, err := New(Options{}).Stream(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			r := p.seen()[0]
			if r.Path != "/v1/responses" || r.Authorization != "Bearer fixture-key" || r.Accept != "text/event-stream" {
				t.Errorf("path %q, authorization %q, accept %q", r.Path, r.Authorization, r.Accept)
			}
			want := map[string]any{"model": "fixture-model", "stream": true, "store": false}
			for k, v := range tt.want {
				want[k] = v
			}
			if !reflect.DeepEqual(r.Body, want) {
				t.Errorf("body = %s\nwant   %s", mustMarshal(r.Body), mustMarshal(want))
			}
		})
	}
}

func TestResponsesFlagsWhatTheUserMustKnow(t *testing.T) {
	msg := func(extra, part string) string {
		return `{"type":"message","role":"assistant"` + extra + `,"content":[` + part + `]}`
	}
	text := `{"type":"output_text","text":"par"}`
	tests := []struct {
		name   string
		blocks []string
		want   []albedo.ItemFlags
		err    string
	}{
		{"cut at the output limit", []string{data(`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"},"output":[` + msg("", text) + `]}}`)},
			[]albedo.ItemFlags{albedo.FlagTruncated}, ""},
		{"stopped for another reason", []string{data(`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"},"output":[` + msg("", text) + `]}}`)},
			nil, "stopped before finishing the reply: content_filter"},
		{"refusal", []string{data(`{"type":"response.completed","response":{"output":[` + msg("", `{"type":"refusal","refusal":"no"}`) + `]}}`)},
			[]albedo.ItemFlags{albedo.FlagRefusal}, ""},
		{"commentary then final answer", []string{data(`{"type":"response.completed","response":{"output":[` + msg(`,"phase":"commentary"`, text) + `,` + msg(`,"phase":"final_answer"`, text) + `]}}`)},
			[]albedo.ItemFlags{albedo.FlagCommentary, 0}, ""},
		{"a bare [DONE] after nothing", []string{data("[DONE]")}, nil, "ended the stream without a reply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, tt.blocks...) })
			reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: endpoint(p, albedo.ProtocolResponses)}, nil)
			if tt.err != "" {
				mustContain(t, errorText(t, err), tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var flags []albedo.ItemFlags
			for _, it := range reply.Items {
				flags = append(flags, it.Flags)
			}
			if !reflect.DeepEqual(flags, tt.want) {
				t.Errorf("flags %v, want %v", flags, tt.want)
			}
		})
	}
}
