package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/projection"
)

func TestChatStream(t *testing.T) {
	tests := []struct {
		name      string
		blocks    []string
		want      []wantItem
		usage     albedo.Usage
		reasoning string
		text      string
		args      string
		err       string
	}{
		{
			name:   "reasoning and a chunked tool call",
			blocks: chatCallStream("call-1"),
			want: []wantItem{
				{Kind: albedo.KindReasoning, Text: "reasoning about the task"},
				{Kind: albedo.KindToolCall, CallID: "call-1", ToolName: "python", Arguments: pythonArgs},
			},
			usage:     albedo.Usage{InputTokens: new(int64(11)), OutputTokens: new(int64(22))},
			reasoning: "reasoning about the task",
			args:      pythonArgs,
		},
		{
			name:   "text answer",
			blocks: chatText("finished"),
			want:   []wantItem{{Kind: albedo.KindAssistant, Text: "finished"}},
			text:   "finished",
		},
		{
			name: "reasoning field, text and two interleaved calls",
			blocks: []string{
				data(`{"choices":[{"index":0,"delta":{"reasoning":"hm"}}]}`),
				data(`{"choices":[{"index":0,"delta":{"content":"Running both."}}]}`),
				data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"second","arguments":"{\"y\""}}]}}]}`),
				data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"first","arguments":"{}"}}]}}]}`),
				data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]}}]}`),
				data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`),
				data("[DONE]"),
			},
			want: []wantItem{
				{Kind: albedo.KindReasoning, Text: "hm"},
				{Kind: albedo.KindAssistant, Text: "Running both."},
				{Kind: albedo.KindToolCall, CallID: "a", ToolName: "first", Arguments: "{}"},
				{Kind: albedo.KindToolCall, CallID: "b", ToolName: "second", Arguments: `{"y":2}`},
			},
			usage:     albedo.Usage{InputTokens: new(int64(1)), OutputTokens: new(int64(2))},
			reasoning: "hm",
			text:      "Running both.",
			args:      `{"y"{}:2}`,
		},
		{
			name: "calls without index",
			blocks: []string{
				data(`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"one","arguments":"{"}}]}}]}`),
				data(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}`),
				data(`{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"two","arguments":"[]"}}]}}]}`),
				data(`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`),
				data("[DONE]"),
			},
			want: []wantItem{
				{Kind: albedo.KindToolCall, CallID: "a", ToolName: "one", Arguments: "{}"},
				{Kind: albedo.KindToolCall, CallID: "b", ToolName: "two", Arguments: "[]"},
			},
			args: "{}[]",
		},
		{
			name: "same reasoning under both names counted once",
			blocks: []string{
				data(`{"choices":[{"index":0,"delta":{"reasoning_content":"x","reasoning":"x"}}]}`),
				data(`{"choices":[{"index":0,"delta":{"content":"y"},"finish_reason":"stop"}]}`),
				data("[DONE]"),
			},
			want:      []wantItem{{Kind: albedo.KindReasoning, Text: "x"}, {Kind: albedo.KindAssistant, Text: "y"}},
			reasoning: "x",
			text:      "y",
		},
		{
			name: "other choices and odd fields ignored",
			blocks: []string{
				data(`{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes","reasoning":{"tokens":3}}}]}`),
				data(`{"choices":[{"index":0,"delta":{"content":null},"finish_reason":"stop"}]}`),
				data("[DONE]"),
			},
			want: []wantItem{{Kind: albedo.KindAssistant, Text: "yes"}},
			text: "yes",
		},
		{
			name: "members of unexpected types left out",
			blocks: []string{
				data(`{"choices":[{"index":0,"delta":{"content":"kept"},"logprobs":"odd"}],"usage":"none"}`),
				data(`{"choices":[{"index":0,"delta":{},"finish_reason":1}]}`),
				data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
				data("[DONE]"),
			},
			want: []wantItem{{Kind: albedo.KindAssistant, Text: "kept"}},
			text: "kept",
		},
		{
			name:   "end without [DONE] after a finish reason",
			blocks: chatText("ok")[:2],
			want:   []wantItem{{Kind: albedo.KindAssistant, Text: "ok"}},
			text:   "ok",
		},
		{
			name:   "end before a finish reason",
			blocks: chatCallStream("call-1")[:5],
			err:    "stream ended early",
		},
		{
			name:   "error in the stream",
			blocks: []string{data(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`), data(`{"error":{"message":"model overloaded","type":"server_error"}}`)},
			err:    "model overloaded",
		},
		{
			name:   "malformed chunk",
			blocks: []string{data(`{"choices":[`)},
			err:    "malformed event",
		},
		{
			name:   "a bare [DONE] after nothing",
			blocks: []string{data("[DONE]")},
			err:    "ended the stream without a reply",
		},
		{
			name:   "a role-only chunk and [DONE]",
			blocks: []string{data(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`), data("[DONE]")},
			err:    "ended the stream without a reply",
		},
		{
			name:   "the output limit hit before any text",
			blocks: []string{data(`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`), data("[DONE]")},
			err:    "hit its output limit before replying",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, tt.blocks...) })
			var got deltas
			reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: endpoint(p, albedo.ProtocolChatCompletions)}, got.add)
			if tt.err != "" {
				mustContain(t, errorText(t, err), tt.err)
				if albedo.ErrorCode(err) != CodeProviderError {
					t.Errorf("code = %q, want %q", albedo.ErrorCode(err), CodeProviderError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkItems(t, reply.Items, albedo.ProtocolChatCompletions, tt.want)
			if !reflect.DeepEqual(reply.Usage, tt.usage) {
				t.Errorf("usage = %+v, want %+v", reply.Usage, tt.usage)
			}
			if got.text[albedo.DeltaReasoning] != tt.reasoning || got.text[albedo.DeltaText] != tt.text || got.text[albedo.DeltaToolCall] != tt.args {
				t.Errorf("deltas = %q", got.text)
			}
		})
	}
}

func TestChatGeneratedCallID(t *testing.T) {
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, chatCallStream("")...) })
	reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: endpoint(p, albedo.ProtocolChatCompletions)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := reply.Items[len(reply.Items)-1]
	if !strings.HasPrefix(call.CallID, "call_") || len(call.CallID) < 20 {
		t.Fatalf("call id = %q", call.CallID)
	}
	var msg struct {
		ToolCalls []struct{ ID string } `json:"tool_calls"`
	}
	projected := projection.Project([]albedo.Item{call}, albedo.ProtocolChatCompletions)
	if err := json.Unmarshal(projected[0], &msg); err != nil || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].ID != call.CallID {
		t.Errorf("projected %s does not carry id %q", projected[0], call.CallID)
	}
}

func TestChatRequest(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`)
	input := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"hello"}`),
		json.RawMessage(`{"role":"assistant","content":"hi"}`),
	}
	tests := []struct {
		name         string
		key          string
		instructions string
		effort       string
		tools        []albedo.Tool
		wantMessages string
		wantTools    string
	}{
		{
			name: "everything", key: "k-123", instructions: "be brief", effort: "high",
			tools:        []albedo.Tool{{Name: "python", Description: "run code", Parameters: schema}},
			wantMessages: `[{"role":"system","content":"be brief"},{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]`,
			wantTools:    `[{"type":"function","function":{"name":"python","description":"run code","parameters":` + string(schema) + `}}]`,
		},
		{
			name:         "bare",
			wantMessages: `[{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]`,
		},
		{
			name:         "tool without schema",
			tools:        []albedo.Tool{{Name: "noop"}},
			wantMessages: `[{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]`,
			wantTools:    `[{"type":"function","function":{"name":"noop","parameters":{"type":"object","properties":{}}}}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, chatText("ok")...) })
			ep := endpoint(p, albedo.ProtocolChatCompletions)
			ep.APIKey, ep.Effort = tt.key, tt.effort
			req := albedo.ModelRequest{Endpoint: ep, Instructions: tt.instructions, Input: input, Tools: tt.tools}
			if _, err := New(Options{}).Stream(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			seen := p.seen()
			if len(seen) != 1 {
				t.Fatalf("%d requests", len(seen))
			}
			r := seen[0]
			if r.Path != "/v1/chat/completions" {
				t.Errorf("path = %q", r.Path)
			}
			wantAuth := ""
			if tt.key != "" {
				wantAuth = "Bearer " + tt.key
			}
			if r.Authorization != wantAuth || r.Accept != "text/event-stream" || r.ContentType != "application/json" {
				t.Errorf("headers: authorization %q, accept %q, content type %q", r.Authorization, r.Accept, r.ContentType)
			}
			b := r.Body
			if b["model"] != "fixture-model" || b["stream"] != true {
				t.Errorf("model %v, stream %v", b["model"], b["stream"])
			}
			if !reflect.DeepEqual(b["stream_options"], map[string]any{"include_usage": true}) {
				t.Errorf("stream_options = %v", b["stream_options"])
			}
			if !sameJSON(string(mustMarshal(b["messages"])), tt.wantMessages) {
				t.Errorf("messages = %s", mustMarshal(b["messages"]))
			}
			if tt.wantTools == "" {
				if _, ok := b["tools"]; ok {
					t.Errorf("tools sent: %v", b["tools"])
				}
			} else if !sameJSON(string(mustMarshal(b["tools"])), tt.wantTools) {
				t.Errorf("tools = %s", mustMarshal(b["tools"]))
			}
			if effort, ok := b["reasoning_effort"]; tt.effort == "" && ok || tt.effort != "" && effort != tt.effort {
				t.Errorf("reasoning_effort = %v, want %q", effort, tt.effort)
			}
		})
	}
}
