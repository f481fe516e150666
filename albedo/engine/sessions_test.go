package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// seedTranscript stores a session with a transcript of every kind of item.
func seedTranscript(t *testing.T, r *rig) albedo.Session {
	t.Helper()
	sess := r.session("")
	res := &albedo.CellResult{Status: albedo.CellOK, Output: "ran\nmore"}
	items := []albedo.Item{
		{Kind: albedo.KindUser, Text: "list files\nplease"},                                              // 1
		{Kind: albedo.KindReasoning, Text: "use os"},                                                     // 2
		{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: `{"code":"import os"}`}, // 3
		{Kind: albedo.KindToolOutput, CallID: "c1", ToolName: "python", Text: "{}", Result: res},         // 4
		{Kind: albedo.KindError, Text: "boom"},                                                           // 5
		{Kind: albedo.KindTurn, Text: albedo.TurnFailed},                                                 // 6
		{Kind: albedo.KindUser, Text: "again"},                                                           // 7
		{Kind: albedo.KindAssistant, Text: "done"},                                                       // 8
		{Kind: albedo.KindTurn, Text: albedo.TurnFinished},                                               // 9
	}
	if _, err := r.store.Commit(r.ctx, albedo.Commit{SessionID: sess.ID, Items: items}); err != nil {
		t.Fatal(err)
	}
	return sess
}

func TestTree(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := seedTranscript(t, r)
	all, more, err := r.svc.Tree(r.ctx, sess.ID, 0, 0)
	if err != nil || more {
		t.Fatalf("Tree = %v, more %v, %v", all, more, err)
	}
	want := []albedo.TreeNode{
		{ID: 1, Type: albedo.NodeUser, Preview: "list files …"},
		{ID: 2, Type: albedo.NodeAssistant, Preview: "[reasoning] use os"},
		{ID: 3, Type: albedo.NodeAssistant, Preview: "call python"},
		{ID: 4, Type: albedo.NodeTool, Preview: "ok: ran …"},
		{ID: 7, Type: albedo.NodeUser, Preview: "again"},
		{ID: 8, Type: albedo.NodeAssistant, Preview: "done"},
	}
	if !slices.Equal(all, want) {
		t.Fatalf("Tree = %+v\nwant %+v", all, want)
	}
	pages := []struct {
		after    int64
		limit    int
		wantIDs  []int64
		wantMore bool
	}{
		{0, 2, []int64{1, 2}, true},
		{2, 2, []int64{3, 4}, true},
		{4, 2, []int64{7, 8}, false},
		{4, 1, []int64{7}, true},
		{8, 5, nil, false},
	}
	for _, p := range pages {
		nodes, more, err := r.svc.Tree(r.ctx, sess.ID, p.after, p.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, n := range nodes {
			ids = append(ids, n.ID)
		}
		if !slices.Equal(ids, p.wantIDs) || more != p.wantMore {
			t.Errorf("Tree(after %d, limit %d) = %v more %v, want %v more %v", p.after, p.limit, ids, more, p.wantIDs, p.wantMore)
		}
	}
}

func TestTailAndEvents(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := seedTranscript(t, r)
	tests := []struct {
		n        int
		wantSeqs []int64
	}{
		{0, nil},
		{-1, nil},
		{3, []int64{7, 8, 9}},
		{100, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tc := range tests {
		events, err := r.svc.Tail(r.ctx, sess.ID, tc.n)
		if err != nil || events == nil {
			t.Fatalf("Tail(%d) = %v, %v", tc.n, events, err)
		}
		var seqs []int64
		for _, ev := range events {
			seqs = append(seqs, ev.Seq)
		}
		if !slices.Equal(seqs, tc.wantSeqs) {
			t.Errorf("Tail(%d) seqs = %v, want %v", tc.n, seqs, tc.wantSeqs)
		}
	}
	events := displayEvents(r.history(sess.ID))
	types := make([]string, len(events))
	for i, ev := range events {
		types[i] = ev.Type
	}
	wantTypes := []string{"user", "thinking", "tool_call", "tool", "error", "turn", "user", "message", "turn"}
	if !slices.Equal(types, wantTypes) {
		t.Errorf("types = %v, want %v", types, wantTypes)
	}
	if tool := events[3]; tool.Code != "import os" || tool.Status != "ok" || !strings.Contains(tool.Result, `"output":"ran\nmore"`) || tool.Text != "" {
		t.Errorf("tool event = %+v", tool)
	}
	if ev := events[5]; ev.Status != albedo.TurnFailed || ev.Text != "" {
		t.Errorf("turn event = %+v", ev)
	}
}

func TestEventOfOutputWithoutResult(t *testing.T) {
	ev := albedo.EventOf(albedo.Item{Seq: 3, Kind: albedo.KindToolOutput, CallID: "c", ToolName: "python", Text: engine.BranchOutput}, "x = 1")
	if ev.Status != string(albedo.CellInterrupted) || !strings.Contains(ev.Result, engine.BranchOutput) || ev.Code != "x = 1" ||
		ev.Trace == nil || ev.Trace.Activities == nil || ev.Trace.Changes == nil {
		t.Errorf("event = %+v", ev)
	}
	call := albedo.Item{Kind: albedo.KindToolCall, Arguments: `{"cmd":"ls"}`}
	if got := albedo.CallCode(call); got != `{"cmd":"ls"}` {
		t.Errorf("CallCode of foreign arguments = %q", got)
	}
}

func TestTitleAndPreview(t *testing.T) {
	long := strings.Repeat("é", 100)
	tests := []struct {
		in, want string
	}{
		{"", albedo.DefaultTitle},
		{"   \n  ", albedo.DefaultTitle},
		{"  fix the build  ", "fix the build"},
		{"first line\nsecond line", "first line …"},
		{long, strings.Repeat("é", 79) + "…"},
	}
	for _, tc := range tests {
		if got := engine.Title(tc.in); got != tc.want {
			t.Errorf("Title(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := albedo.Preview("abcdef", 4); got != "abc…" {
		t.Errorf("Preview = %q", got)
	}
}

func TestErrorHelpers(t *testing.T) {
	domain := &albedo.Error{Code: albedo.EWorkspaceMissing, Message: "gone", Details: map[string]any{"workspace": "/w"}}
	tests := []struct {
		name        string
		err         error
		code, msg   string
		wantDetails bool
	}{
		{"nil", nil, "", "", false},
		{"plain", errors.New("secret detail"), albedo.EInternal, "internal error", false},
		{"domain", domain, albedo.EWorkspaceMissing, "gone", true},
		{"wrapped", fmt.Errorf("send: %w", domain), albedo.EWorkspaceMissing, "gone", true},
	}
	for _, tc := range tests {
		if got := albedo.ErrorCode(tc.err); got != tc.code {
			t.Errorf("%s: code %q, want %q", tc.name, got, tc.code)
		}
		if got := albedo.ErrorMessage(tc.err); got != tc.msg {
			t.Errorf("%s: message %q, want %q", tc.name, got, tc.msg)
		}
		if got := albedo.ErrorDetails(tc.err) != nil; got != tc.wantDetails {
			t.Errorf("%s: details %v", tc.name, albedo.ErrorDetails(tc.err))
		}
	}
	if domain.Error() != "gone" {
		t.Error("Error() is not the message")
	}
}

func TestSmallPredicates(t *testing.T) {
	for _, k := range []albedo.ItemKind{albedo.KindUser, albedo.KindReasoning, albedo.KindAssistant, albedo.KindToolCall, albedo.KindToolOutput} {
		if !k.Conversational() {
			t.Errorf("%s is not conversational", k)
		}
	}
	for _, k := range []albedo.ItemKind{albedo.KindError, albedo.KindTurn, "other"} {
		if k.Conversational() {
			t.Errorf("%s is conversational", k)
		}
	}
	if !albedo.ProtocolResponses.Valid() || !albedo.ProtocolChatCompletions.Valid() || albedo.Protocol("grpc").Valid() {
		t.Error("Protocol.Valid")
	}
	closed := map[albedo.VentStatus]bool{albedo.VentOpen: false, albedo.VentAcknowledged: false, albedo.VentResolved: true, albedo.VentDismissed: true}
	for s, want := range closed {
		if s.Closed() != want {
			t.Errorf("%s.Closed() = %v", s, !want)
		}
	}
	if got := albedo.VentTopics(); !slices.Equal(got, []string{"harness", "workflow", "bug", "user", "other"}) {
		t.Errorf("VentTopics = %v", got)
	}
	tool := albedo.PythonTool()
	if tool.Name != "python" || !strings.Contains(string(tool.Parameters), `"required":["code"]`) {
		t.Errorf("PythonTool = %+v", tool)
	}
}
