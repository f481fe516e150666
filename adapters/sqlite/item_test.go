package sqlite

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestItemsRoundTrip(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 1)
	ctx := context.Background()
	tests := []struct {
		name string
		item albedo.Item
	}{
		{"plain user text", albedo.Item{Kind: albedo.KindUser, Text: "hello", Timestamp: 1}},
		{"system note with notes", albedo.Item{
			Kind: albedo.KindUser, Text: "albedo restarted", Source: "daemon restart",
			Notes: []string{"the kernel restarted", "ünïcode ✓"}, Timestamp: 2,
		}},
		{"image", albedo.Item{
			Kind: albedo.KindUser, Text: "look",
			Image: &albedo.Image{MimeType: "image/png", Width: 2, Height: 3, Bytes: 5, Data: []byte{0x89, 'P', 0, 'N', 0xff}},
		}},
		{"reasoning with raw", albedo.Item{
			Kind: albedo.KindReasoning, Text: "thinking", Protocol: albedo.ProtocolResponses,
			Raw: json.RawMessage(`{"type":"reasoning","summary":[{"text":"thinking"}]}`),
		}},
		{"tool call", albedo.Item{
			Kind: albedo.KindToolCall, CallID: "call-1", ToolName: "python",
			Arguments: `{"code":"print(1)"}`, Protocol: albedo.ProtocolChatCompletions,
			Raw: json.RawMessage(`{"id":"call-1"}`),
		}},
		{"tool output with result and trace", albedo.Item{
			Kind: albedo.KindToolOutput, CallID: "call-1", Text: "1\n",
			Result: &albedo.CellResult{
				Status: albedo.CellOK, Output: "1\n", Value: "None", Notes: []string{"fresh kernel"},
				Trace: albedo.Trace{
					Activities: []albedo.Activity{{Kind: "read", Target: "/w/a.txt"}},
					Changes:    []albedo.Change{{Path: "/w/b.txt", Kind: "created"}},
				},
			},
		}},
		{"tool output with an empty trace", albedo.Item{
			Kind: albedo.KindToolOutput, CallID: "call-2",
			Result: &albedo.CellResult{Status: albedo.CellTimeout, Error: "too slow"},
		}},
		{"turn marker", albedo.Item{Kind: albedo.KindTurn, Text: albedo.TurnFinished}},
		{"refused answer", albedo.Item{Kind: albedo.KindAssistant, Text: "I can't help with that.", Flags: albedo.FlagRefusal}},
		{"partial, truncated commentary", albedo.Item{
			Kind: albedo.KindAssistant, Text: "Looking", Flags: albedo.FlagPartial | albedo.FlagTruncated | albedo.FlagCommentary,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := mustCommit(t, s, albedo.Commit{SessionID: "s0", Items: []albedo.Item{tc.item}})
			want := done.Items[0]
			got, err := s.Items(ctx, "s0", want.Seq-1, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
				t.Errorf("Items\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestItemsPaging(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 2)
	items := make([]albedo.Item, 10)
	for i := range items {
		items[i] = textItem("x")
	}
	mustCommit(t, s, albedo.Commit{SessionID: "s0", Items: items})
	mustCommit(t, s, albedo.Commit{SessionID: "s1", Items: items[:3]})
	tests := []struct {
		after int64
		limit int
		want  string
	}{
		{0, 0, "1 2 3 4 5 6 7 8 9 10"},
		{0, 3, "1 2 3"},
		{3, 3, "4 5 6"},
		{8, 5, "9 10"},
		{10, 0, ""},
		{-5, -1, "1 2 3 4 5 6 7 8 9 10"},
	}
	for _, tc := range tests {
		got, err := s.Items(context.Background(), "s0", tc.after, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []int64
		for _, it := range got {
			seqs = append(seqs, it.Seq)
		}
		if join(seqs) != tc.want {
			t.Errorf("Items(after %d, limit %d) = %q, want %q", tc.after, tc.limit, join(seqs), tc.want)
		}
	}
}
