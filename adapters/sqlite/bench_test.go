package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// benchItems returns n items shaped like a real transcript: a user message,
// then rounds of reasoning, a python call and its output, then the answer.
func benchItems(n int) []albedo.Item {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 5)
	items := make([]albedo.Item, n)
	for i := range items {
		ts := int64(1_700_000_000_000 + i)
		call := fmt.Sprintf("call-%d", i)
		switch i % 5 {
		case 0:
			items[i] = albedo.Item{Kind: albedo.KindUser, Text: text, Timestamp: ts}
		case 1:
			items[i] = albedo.Item{
				Kind: albedo.KindReasoning, Text: text, Protocol: albedo.ProtocolResponses, Timestamp: ts,
				Raw: json.RawMessage(`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"` + text + `"}]}`),
			}
		case 2:
			items[i] = albedo.Item{
				Kind: albedo.KindToolCall, CallID: call, ToolName: "python", Protocol: albedo.ProtocolResponses,
				Arguments: `{"code":"print(open('example.txt').read())"}`, Timestamp: ts,
				Raw: json.RawMessage(`{"type":"function_call","call_id":"` + call + `","name":"python","arguments":"{}"}`),
			}
		case 3:
			items[i] = albedo.Item{
				Kind: albedo.KindToolOutput, CallID: call, Text: text, Timestamp: ts,
				Result: &albedo.CellResult{
					Status: albedo.CellOK, Output: text,
					Trace: albedo.Trace{Activities: []albedo.Activity{{Kind: "read", Target: "/w/example.txt"}}},
				},
			}
		case 4:
			items[i] = albedo.Item{
				Kind: albedo.KindAssistant, Text: text, Protocol: albedo.ProtocolResponses, Timestamp: ts,
				Raw: json.RawMessage(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + text + `"}]}`),
			}
		}
	}
	return items
}

func BenchmarkSessions1000(b *testing.B) {
	s := openStore(b, testPath(b))
	ctx := context.Background()
	for i := range 1000 {
		sess := newSession(fmt.Sprintf("session-%04d", i))
		sess.Title = "write and inspect a file"
		sess.UpdatedAt = time.UnixMilli(1_700_000_000_000 + int64(i))
		mustCommit(b, s, albedo.Commit{Session: &sess})
	}
	b.ResetTimer()
	for b.Loop() {
		sessions, err := s.Sessions(ctx)
		if err != nil || len(sessions) != 1000 {
			b.Fatalf("Sessions: %d, %v", len(sessions), err)
		}
	}
}

func BenchmarkItems10000(b *testing.B) {
	s := openStore(b, testPath(b))
	ctx := context.Background()
	createSessions(b, s, "s", 2)
	items := benchItems(10_000)
	for i := 0; i < len(items); i += 500 {
		// Another session's items interleave, as in a busy daemon.
		mustCommit(b, s, albedo.Commit{SessionID: "s0", Items: items[i : i+500]})
		mustCommit(b, s, albedo.Commit{SessionID: "s1", Items: items[i : i+100]})
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := s.Items(ctx, "s0", 0, 0)
		if err != nil || len(got) != 10_000 {
			b.Fatalf("Items: %d, %v", len(got), err)
		}
	}
}

func BenchmarkCommitItem(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			s := openStore(b, testPath(b))
			ctx := context.Background()
			createSessions(b, s, "s", 1)
			sess := newSession("s0")
			items := benchItems(n)
			b.ResetTimer()
			for b.Loop() {
				// A turn's step: its items land with the session's update.
				sess.Revision++
				if _, err := s.Commit(ctx, albedo.Commit{Session: &sess, Items: items}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
