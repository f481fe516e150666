package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// TestResponsesRawKeepsItsText: a Responses item's Raw is the item as
// received (less its id), with its text (a call's arguments) in it however
// long, and it is not flagged: the projection replays the Raw as it is.
// An item made from deltas alone keeps no Raw: the projection writes it
// from its fields.
func TestResponsesRawKeepsItsText(t *testing.T) {
	long := strings.Repeat("a <long> text, é\n", 4096)
	short := "a short text"
	message := func(texts ...string) map[string]any {
		var parts []any
		for _, text := range texts {
			parts = append(parts, map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}})
		}
		return map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": parts}
	}
	reasoning := func(text string) map[string]any {
		return map[string]any{"type": "reasoning", "encrypted_content": "e", "summary": []any{map[string]any{"type": "summary_text", "text": text}}}
	}
	call := func(arguments string) map[string]any {
		return map[string]any{"type": "function_call", "call_id": "c1", "name": "python", "arguments": arguments}
	}
	completed := func(item map[string]any) []string {
		return []string{data(map[string]any{"type": "response.completed", "response": map[string]any{"output": []any{item}}})}
	}
	deltas := func(kind, text string) []string {
		return []string{data(map[string]any{"type": kind, "output_index": 0, "delta": text}),
			data(`{"type":"response.completed","response":{}}`)}
	}
	tests := []struct {
		name   string
		blocks []string
		// raw is the Raw expected, as JSON of the same value; nil for none.
		raw map[string]any
	}{
		{"a long answer", completed(message(long)), message(long)},
		{"a short answer", completed(message(short)), message(short)},
		{"a long answer in two parts", completed(message(long, short)), message(long, short)},
		{"long reasoning", completed(reasoning(long)), reasoning(long)},
		{"a long call", completed(call(long)), call(long)},
		{"a short call", completed(call(short)), call(short)},
		{"a long answer that only streamed", deltas("response.output_text.delta", long), nil},
		{"long reasoning that only streamed", deltas("response.reasoning_summary_text.delta", long), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, tt.blocks...) })
			reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: endpoint(p, albedo.ProtocolResponses)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(reply.Items) != 1 {
				t.Fatalf("%d items", len(reply.Items))
			}
			it := reply.Items[0]
			if tt.raw == nil {
				if len(it.Raw) != 0 {
					t.Errorf("raw = %.300s, want none", it.Raw)
				}
				return
			}
			want, err := json.Marshal(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(string(it.Raw), storedForm(string(want))) {
				t.Errorf("raw = %.300s, want %.300s", it.Raw, want)
			}
			if it.Flags != 0 {
				t.Errorf("flags = %v, want none", it.Flags)
			}
		})
	}
}
