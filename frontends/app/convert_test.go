package app

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// keys returns the JSON object keys of v, sorted.
func keys(t *testing.T, v any) []string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestShapes(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	res := albedo.CellResult{Status: albedo.CellOK, Output: "hi\n", Trace: albedo.Trace{Changes: []albedo.Change{{Path: "/w/a"}}}}
	history := history([]albedo.Item{
		{Seq: 1, Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: `{"code":"1"}`},
		{Seq: 2, Kind: albedo.KindToolOutput, CallID: "c1", ToolName: "python", Text: "{}", Result: &res},
		{Seq: 3, Kind: albedo.KindToolOutput, CallID: "c2", ToolName: "python", Text: engine.BranchOutput},
		{Seq: 4, Kind: albedo.KindCompaction, Text: "the summary", Raw: json.RawMessage(`{"items":3,"tokens_before":900,"tokens_after":120}`), Timestamp: 5},
	})
	tests := []struct {
		name string
		v    any
		want []string
	}{
		{"session", session(albedo.Session{ID: "s", Provider: "p", Model: "m", Protocol: albedo.ProtocolResponses, CreatedAt: now, UpdatedAt: now}),
			[]string{"archived", "created_at", "effort", "id", "model", "name", "protocol", "provider", "revision", "stage", "title", "updated_at", "usage", "workspace"}},
		{"config", config(albedo.Session{ID: "s", Revision: 3}),
			[]string{"archived", "id", "model", "name", "protocol", "provider", "revision", "title", "workspace"}},
		{"vent", vent(albedo.Vent{ID: 7, Topic: "bug", Message: "m", Status: albedo.VentOpen}),
			[]string{"created_at", "id", "message", "reply", "resolution", "resolving_session_id", "revision", "session_id", "status", "suggestion", "title", "topic", "updated_at", "workspace"}},
		{"call", history[0], []string{"arguments", "call_id", "kind", "seq", "timestamp", "tool"}},
		{"result", history[1], []string{"call_id", "content", "kind", "seq", "timestamp", "tool"}},
		{"compaction", history[3], []string{"items", "kind", "seq", "summary", "timestamp", "tokens_after", "tokens_before"}},
	}
	for _, tt := range tests {
		if got := keys(t, tt.v); !slices.Equal(got, tt.want) {
			t.Errorf("%s keys = %v, want %v", tt.name, got, tt.want)
		}
	}
	if v := vent(albedo.Vent{ID: 7}); v.ID != "7" || v.SessionID != nil {
		t.Errorf("vent id and missing session = %q, %v", v.ID, v.SessionID)
	}
	if c := history[1].Content; len(c) != 2 || c[0].Field != "result" || c[1].Field != "trace" {
		t.Errorf("tool result content = %+v", c)
	}
	if c := history[2].Content; len(c) != 1 || c[0].Kind != "text" || c[0].Text != engine.BranchOutput {
		t.Errorf("unexecuted branch output content = %+v", c)
	}
	if h := history[3]; h.Kind != "compaction" || h.Summary != "the summary" || h.Items != 3 || h.TokensBefore != 900 || h.TokensAfter != 120 {
		t.Errorf("compaction history item = %+v", h)
	}
	if ev := albedo.EventOf(albedo.Item{Seq: 4, Kind: albedo.KindCompaction, Text: "the summary", Raw: json.RawMessage(`{"items":3,"tokens_before":900,"tokens_after":120}`), Timestamp: 5}, ""); !slices.Equal(keys(t, ev), []string{"items", "seq", "summary", "timestamp", "tokens_after", "tokens_before", "type"}) {
		t.Errorf("compaction event keys = %v", keys(t, ev))
	}
	if got := wire.ETag(12); got != `"12"` {
		t.Errorf("ETag = %s", got)
	}
}

// A tool output read for display shows the same history item as one read
// whole, with or without a trace.
func TestHistoryOfADisplayedOutput(t *testing.T) {
	for _, res := range []albedo.CellResult{
		{Status: albedo.CellOK, Output: "hi\n"},
		{Status: albedo.CellError, Output: "<a> \"b\"", Trace: albedo.Trace{Changes: []albedo.Change{{Path: "/w/a"}}}},
	} {
		whole := albedo.Item{Seq: 2, Kind: albedo.KindToolOutput, CallID: "c1", ToolName: "python", Text: res.Output, Result: &res}
		result, _ := json.Marshal(&res)
		shown := albedo.Item{Seq: 2, Kind: albedo.KindToolOutput, CallID: "c1", ToolName: "python", ResultJSON: string(result)}
		if len(res.Trace.Changes) > 0 {
			trace, _ := json.Marshal(res.Trace)
			shown.TraceJSON = string(trace)
		}
		got, want := history([]albedo.Item{shown}), history([]albedo.Item{whole})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("displayed %+v, whole %+v", got, want)
		}
	}
}

// TestCommandResultJSON: each command's outcome has the shape the API
// documents for it.
func TestCommandResultJSON(t *testing.T) {
	effort := "low"
	tests := []struct {
		name   string
		result albedo.CommandResult
		want   string
	}{
		{"model", albedo.CommandResult{Model: &albedo.ModelChoice{Provider: "chat", Model: "c2", Protocol: albedo.ProtocolChatCompletions, Effort: &effort}},
			`{"provider":"chat","model":"c2","protocol":"chat_completions","effort":"low"}`},
		{"model without effort", albedo.CommandResult{Model: &albedo.ModelChoice{Provider: "p", Model: "m", Protocol: albedo.ProtocolResponses}},
			`{"provider":"p","model":"m","protocol":"responses","effort":null}`},
		{"compact started", albedo.CommandResult{Compact: &albedo.CompactResult{Started: true}}, `{"started":true}`},
		{"nothing to compact", albedo.CommandResult{Compact: &albedo.CompactResult{Reason: "nothing to compact"}},
			`{"started":false,"reason":"nothing to compact"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := commandResult(tc.result)
			if err != nil || string(got) != tc.want {
				t.Errorf("commandResult = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
	if _, err := commandResult(albedo.CommandResult{}); err == nil {
		t.Error("a command with no outcome is shown")
	}
}
