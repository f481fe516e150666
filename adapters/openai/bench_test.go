package openai

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/internal/sse"
)

// roundTrip answers every request with a fresh copy of body.
type roundTrip string

func (body roundTrip) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(strings.NewReader(string(body))),
		Request:    r,
	}, nil
}

// longChat is a Chat Completions stream of n content chunks and a tool
// call in n argument chunks.
func longChat(n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"token "},"finish_reason":null}]}`))
	}
	b.WriteString(data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"python","arguments":""}}]}}]}`))
	for range n {
		b.WriteString(data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"x = 1\\n"}}]},"finish_reason":null}]}`))
	}
	b.WriteString(data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`))
	b.WriteString(data("[DONE]"))
	return b.String()
}

// longResponses is a Responses stream of n text deltas.
func longResponses(n int) string {
	var b strings.Builder
	b.WriteString(named(map[string]any{"type": "response.created", "response": map[string]any{"id": "r"}}))
	for i := range n {
		b.WriteString(named(map[string]any{"type": "response.output_text.delta", "sequence_number": i, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "token "}))
	}
	b.WriteString(data(`{"type":"response.completed","response":{"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + strings.Repeat("token ", n) + `"}]}]}}`))
	return b.String()
}

func BenchmarkStream(b *testing.B) {
	cases := []struct {
		name     string
		protocol albedo.Protocol
		body     string
	}{
		{"chat", albedo.ProtocolChatCompletions, longChat(5000)},
		{"responses", albedo.ProtocolResponses, longResponses(10000)},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			c := New(Options{HTTPClient: &http.Client{Transport: roundTrip(bc.body)}, Logger: slog.New(slog.DiscardHandler)})
			req := albedo.ModelRequest{Endpoint: albedo.Endpoint{BaseURL: "http://model.invalid/v1", Protocol: bc.protocol}}
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Stream(context.Background(), req, func(albedo.Delta) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSSE(b *testing.B) {
	body := longChat(5000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		s := sse.NewReader(strings.NewReader(body), 0)
		for {
			if _, err := s.Next(); err != nil {
				break
			}
		}
	}
}

// longChatCall is a Chat Completions stream of one python call whose
// arguments are about size bytes, in 16 KiB deltas, as a model writing a
// long cell sends it.
func longChatCall(size int) string {
	line := strings.Repeat("y", 1023) + `\\n`
	code := `s = \"\"\"` + strings.Repeat(line, size/len(line)) + `\"\"\"\nprint(len(s))\n`
	arguments := `{"code": "` + code + `"}`
	var b strings.Builder
	b.WriteString(data(`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"python","arguments":""}}]}}]}`))
	for at := 0; at < len(arguments); at += 16 << 10 {
		delta, _ := json.Marshal(arguments[at:min(at+16<<10, len(arguments))])
		b.WriteString(data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + string(delta) + `}}]}}]}`))
	}
	b.WriteString(data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`))
	b.WriteString(data("[DONE]"))
	return b.String()
}

// BenchmarkLongChatCall decodes a reply of one tool call with 7 MiB of
// arguments, under the 8 MiB cap. B/op is what the decoding allocated (the
// chunks as they are decoded, and the arguments once); live-MB is the Go
// heap in use, after a collection, while the reply is held: its arguments
// once, and no native JSON repeating them.
func BenchmarkLongChatCall(b *testing.B) {
	body := longChatCall(7 << 20)
	c := New(Options{HTTPClient: &http.Client{Transport: roundTrip(body)}, Logger: slog.New(slog.DiscardHandler)})
	req := albedo.ModelRequest{Endpoint: albedo.Endpoint{BaseURL: "http://model.invalid/v1", Protocol: albedo.ProtocolChatCompletions}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var live uint64
	for b.Loop() {
		reply, err := c.Stream(context.Background(), req, func(albedo.Delta) {})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		live = max(live, m.HeapAlloc)
		if len(reply.Items) != 1 || len(reply.Items[0].Arguments) < 6<<20 || len(reply.Items[0].Raw) != 0 {
			b.Fatalf("reply %d items, raw %d bytes", len(reply.Items), len(reply.Items[0].Raw))
		}
	}
	b.ReportMetric(float64(live)/1e6, "live-MB")
}
