package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// runaway is a provider's stream that never ends by itself: head, then
// repeat again and again until the reader goes away or about limit bytes
// were written (so that a test whose reader keeps reading still ends).
type runaway struct {
	head, repeat string
}

func (r runaway) serve(w http.ResponseWriter, written *atomic.Int64, limit int64) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	n, _ := io.WriteString(w, r.head)
	written.Add(int64(n))
	for written.Load() < limit {
		n, err := io.WriteString(w, r.repeat)
		written.Add(int64(n))
		if err != nil {
			return
		}
	}
}

func chatDelta(delta map[string]any) string {
	return data(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta}}})
}

func responsesDelta(typ, delta string) string {
	return named(map[string]any{"type": typ, "output_index": 0, "delta": delta})
}

// TestRunawayReplyEndsAtTheCap: whatever grows without end (an answer,
// reasoning, one call's arguments, one stream line, one event), the reply
// fails at the cap with an error that names it and the provider, keeps
// what arrived before it (cut, flagged partial), and stops reading.
func TestRunawayReplyEndsAtTheCap(t *testing.T) {
	const limit = 64 << 10
	piece := strings.Repeat("é", 100) // two bytes each: a cut may fall inside one
	call := func(args string) map[string]any {
		return map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "function": map[string]any{"name": "python", "arguments": args}}}}
	}
	tests := []struct {
		name     string
		protocol albedo.Protocol
		stream   runaway
		// kind and text are the item kept before the cap: its text starts
		// with text and is cut within the cap.
		kind albedo.ItemKind
		text string
		what string
	}{
		{"chat answer", albedo.ProtocolChatCompletions, runaway{chatDelta(map[string]any{"content": "start "}), chatDelta(map[string]any{"content": piece})},
			albedo.KindAssistant, "start é", "an answer"},
		{"chat reasoning", albedo.ProtocolChatCompletions, runaway{"", chatDelta(map[string]any{"reasoning_content": piece})},
			albedo.KindReasoning, "éé", "reasoning"},
		{"chat call arguments", albedo.ProtocolChatCompletions, runaway{chatDelta(call(`{"code": "`)), chatDelta(call(piece))},
			albedo.KindNote, `{"code": "é`, "a call's arguments"},
		{"chat stream line", albedo.ProtocolChatCompletions, runaway{chatDelta(map[string]any{"content": "before"}) + `data: {"choices": [{"index": 0, "delta": {"content": "`, piece},
			albedo.KindAssistant, "before", "a stream line"},
		{"chat stream event", albedo.ProtocolChatCompletions, runaway{chatDelta(map[string]any{"content": "before"}) + "data: {\n", "data: " + piece + "\n"},
			albedo.KindAssistant, "before", "a stream event"},
		{"responses answer", albedo.ProtocolResponses, runaway{responsesDelta("response.output_text.delta", "start "), responsesDelta("response.output_text.delta", piece)},
			albedo.KindAssistant, "start é", "an answer"},
		{"responses reasoning", albedo.ProtocolResponses, runaway{"", responsesDelta("response.reasoning_summary_text.delta", piece)},
			albedo.KindReasoning, "éé", "reasoning"},
		{"responses call arguments", albedo.ProtocolResponses, runaway{
			named(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"type": "function_call", "call_id": "call_1", "name": "python"}}),
			responsesDelta("response.function_call_arguments.delta", piece)},
			albedo.KindNote, "éé", "a call's arguments"},
		{"responses stream line", albedo.ProtocolResponses, runaway{responsesDelta("response.output_text.delta", "before") + `data: {"type": "response.output_text.delta", "delta": "`, piece},
			albedo.KindAssistant, "before", "a stream line"},
		{"responses event", albedo.ProtocolResponses, runaway{responsesDelta("response.output_text.delta", "before") + "event: response.completed\ndata: {\n", "data: " + piece + "\n"},
			albedo.KindAssistant, "before", "a stream event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var written atomic.Int64
			const bound = 64 << 20
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { tt.stream.serve(w, &written, bound) })
			ep := endpoint(p, tt.protocol)
			ep.MaxReplyBytes = limit
			reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: ep}, nil)
			mustContain(t, errorText(t, err), `provider "fixture"`, "sent "+tt.what+" longer than the 65536-byte cap")
			if albedo.ErrorCode(err) != CodeProviderError {
				t.Errorf("code = %q", albedo.ErrorCode(err))
			}
			if n := written.Load(); n >= bound {
				t.Errorf("the client read on past the cap: %d bytes", n)
			}
			var kept *albedo.Item
			for i, it := range reply.Items {
				if it.Kind == tt.kind {
					kept = &reply.Items[i]
				}
				if it.Kind == albedo.KindToolCall {
					t.Errorf("a cut call is kept as a call, which would run: %+v", it)
				}
			}
			if kept == nil {
				t.Fatalf("no %s item kept: %+v", tt.kind, reply.Items)
			}
			if !strings.HasPrefix(kept.Text, tt.text) || len(kept.Text) > limit || !json.Valid(mustMarshal(kept.Text)) {
				t.Errorf("kept %d bytes starting %.20q, want at most %d starting %q", len(kept.Text), kept.Text, limit, tt.text)
			}
			if strings.Contains(kept.Text, "\uFFFD") {
				t.Error("the cut split a character")
			}
			if kept.Flags&albedo.FlagPartial == 0 {
				t.Errorf("flags = %v, want partial", kept.Flags)
			}
		})
	}
}

// TestReplyCapDefaultsAndLowers: the cap is 8 MiB unless the provider
// setting lowers it; a setting above it does not raise it.
func TestReplyCapDefaultsAndLowers(t *testing.T) {
	for _, tt := range []struct{ setting, want int }{
		{0, 8 << 20}, {1 << 20, 1 << 20}, {64 << 20, 8 << 20},
	} {
		if got := replyLimit(albedo.Endpoint{MaxReplyBytes: tt.setting}); got != tt.want {
			t.Errorf("MaxReplyBytes %d: cap %d, want %d", tt.setting, got, tt.want)
		}
	}
	if got := capFailure(albedo.Endpoint{Provider: "local"}, DefaultMaxReply, "an answer longer than").Error(); !strings.Contains(got, fmt.Sprintf("provider %q sent an answer longer than the 8 MiB cap", "local")) {
		t.Errorf("message %q", got)
	}
}

// TestReplyUnderTheCapIsWhole: a reply just under the cap is not cut.
func TestReplyUnderTheCapIsWhole(t *testing.T) {
	text := strings.Repeat("x", 60<<10)
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, chatText(text)...) })
	ep := endpoint(p, albedo.ProtocolChatCompletions)
	ep.MaxReplyBytes = 64 << 10
	reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: ep}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Items) != 1 || reply.Items[0].Text != text {
		t.Errorf("reply %d items, text of %d bytes", len(reply.Items), len(reply.Items[0].Text))
	}
}
