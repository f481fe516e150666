package embedded_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/openai"
	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/embedded"
)

// ledgerKey is the API key of the ledger tests; no row may contain it.
const ledgerKey = "sk-ledger-secret-0123456789"

// tokens is the usage a fake reply reports; nil members are left out of
// the JSON.
type tokens struct{ input, cached, output, reasoning *int64 }

func n(v int64) *int64 { return &v }

// scriptedServer answers model requests in turn: each answer is either an
// HTTP status with an error body or a reply (a python call or text) with
// usage.
type scriptedServer struct {
	protocol albedo.Protocol
	mu       sync.Mutex
	answers  []func(w http.ResponseWriter)
	served   int
}

func (s *scriptedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	i := s.served
	s.served++
	s.mu.Unlock()
	if i >= len(s.answers) {
		http.Error(w, "no more answers", http.StatusGone)
		return
	}
	s.answers[i](w)
}

// fail answers with status and a body that quotes the key back.
func (s *scriptedServer) fail(status int) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"overloaded, key %s"}}`, ledgerKey)
	}
}

// reply streams a python call (code not empty) or a text answer.
func (s *scriptedServer) reply(code, text string, u tokens) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range s.events(code, text, u) {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}
}

func (s *scriptedServer) events(code, text string, u tokens) []string {
	args, _ := json.Marshal(map[string]string{"code": code})
	if s.protocol == albedo.ProtocolChatCompletions {
		usage := map[string]any{}
		put(usage, "prompt_tokens", u.input)
		put(usage, "completion_tokens", u.output)
		if u.cached != nil {
			usage["prompt_tokens_details"] = map[string]any{"cached_tokens": *u.cached}
		}
		if u.reasoning != nil {
			usage["completion_tokens_details"] = map[string]any{"reasoning_tokens": *u.reasoning}
		}
		first := map[string]any{"content": text}
		finish := "stop"
		if code != "" {
			first = map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call-" + code, "function": map[string]any{"name": "python", "arguments": string(args)}}}}
			finish = "tool_calls"
		}
		return []string{
			mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": first}}}),
			mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}}),
			mustJSON(map[string]any{"choices": []any{}, "usage": usage}),
			"[DONE]",
		}
	}
	usage := map[string]any{}
	put(usage, "input_tokens", u.input)
	put(usage, "output_tokens", u.output)
	if u.cached != nil {
		usage["input_tokens_details"] = map[string]any{"cached_tokens": *u.cached}
	}
	if u.reasoning != nil {
		usage["output_tokens_details"] = map[string]any{"reasoning_tokens": *u.reasoning}
	}
	item := map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}}
	if code != "" {
		item = map[string]any{"type": "function_call", "call_id": "call-" + code, "name": "python", "arguments": string(args)}
	}
	return []string{mustJSON(map[string]any{"type": "response.completed", "response": map[string]any{"status": "completed", "output": []any{item}, "usage": usage}})}
}

func put(m map[string]any, key string, v *int64) {
	if v != nil {
		m[key] = *v
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestLedgerRecordsEveryAttempt runs a turn of two tool rounds, a 503 that
// is retried, and a final answer, for each protocol and store, and reads
// the ledger back: one row per attempt, in order, with the exact token
// counts the provider sent and null where it sent none, and never the key.
func TestLedgerRecordsEveryAttempt(t *testing.T) {
	stores := map[string]func(t *testing.T) albedo.Store{
		"memstore": func(*testing.T) albedo.Store { return memstore.New() },
		"sqlite": func(t *testing.T) albedo.Store {
			s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "albedo.sqlite"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	first := tokens{input: n(120), cached: n(100), output: n(30), reasoning: n(12)}
	second := tokens{input: n(180), output: n(25)}
	final := tokens{input: n(240), cached: n(0), output: n(9), reasoning: n(0)}
	for _, protocol := range []albedo.Protocol{albedo.ProtocolResponses, albedo.ProtocolChatCompletions} {
		for storeName, newStore := range stores {
			t.Run(string(protocol)+"/"+storeName, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				srv := &scriptedServer{protocol: protocol}
				srv.answers = []func(http.ResponseWriter){
					srv.reply("1", "", first),
					srv.fail(http.StatusServiceUnavailable),
					srv.reply("2", "", second),
					srv.reply("", "all done", final),
				}
				ts := httptest.NewServer(srv)
				defer ts.Close()
				provider := openai.New(openai.Options{BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
				config := fakes.NewConfig("p", albedo.ProviderConfig{Name: "p", BaseURL: ts.URL, APIKey: ledgerKey, Model: "m", Protocol: protocol})
				a := mustOpen(t, embedded.Options{Store: newStore(t), Provider: provider, Kernel: fakes.NewKernel(), Config: config})
				s, err := a.CreateSession(ctx, t.TempDir(), "")
				if err != nil {
					t.Fatal(err)
				}
				runTurn(t, a, s.ID, "go")

				page, err := a.Requests(ctx, s.ID, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				type tuple struct {
					outcome                          string
					status                           int
					input, cached, output, reasoning string
				}
				show := func(p *int64) string {
					if p == nil {
						return "null"
					}
					return fmt.Sprint(*p)
				}
				want := []tuple{
					{"ok", 200, "120", "100", "30", "12"},
					{"error", 503, "null", "null", "null", "null"},
					{"ok", 200, "180", "null", "25", "null"},
					{"ok", 200, "240", "0", "9", "0"},
				}
				if len(page.Rows) != len(want) || page.Next != nil {
					t.Fatalf("%d rows (next %v), want %d: %+v", len(page.Rows), page.Next, len(want), page.Rows)
				}
				for i, r := range page.Rows {
					status := 0
					if r.Status != nil {
						status = *r.Status
					}
					got := tuple{r.Outcome, status, show(r.InputTokens), show(r.CachedInputTokens), show(r.OutputTokens), show(r.ReasoningTokens)}
					if got != want[i] {
						t.Errorf("row %d = %+v, want %+v", i, got, want[i])
					}
					if r.Kind != "turn" || r.Provider != "p" || r.Model != "m" || r.Protocol != string(protocol) || r.Bytes <= 0 || r.Finished < r.Started || r.Started <= 0 {
						t.Errorf("row %d = %+v", i, r)
					}
					if i > 0 && r.ID <= page.Rows[i-1].ID {
						t.Errorf("row %d id %d is not after %d", i, r.ID, page.Rows[i-1].ID)
					}
					if raw := mustJSON(r); strings.Contains(raw, ledgerKey) {
						t.Errorf("row %d holds the key: %s", i, raw)
					}
				}
				if e := page.Rows[1].Error; e == nil || !strings.Contains(*e, "503") || !strings.Contains(*e, "overloaded") {
					t.Errorf("error of the 503 row = %v", e)
				}
				if page.Rows[0].Error != nil {
					t.Errorf("an ok row has an error: %q", *page.Rows[0].Error)
				}
				if page.Rows[1].Items != page.Rows[2].Items || page.Rows[0].Items >= page.Rows[2].Items || page.Rows[2].Items >= page.Rows[3].Items {
					t.Errorf("items carried = %d %d %d %d", page.Rows[0].Items, page.Rows[1].Items, page.Rows[2].Items, page.Rows[3].Items)
				}

				detail, err := a.Session(ctx, s.ID, 0)
				if err != nil {
					t.Fatal(err)
				}
				u := detail.Session.Usage
				if u.InputTokens != 540 || u.CachedInputTokens != 100 || u.OutputTokens != 64 || u.ReasoningTokens != 12 || u.Requests != 3 {
					t.Errorf("session usage = %+v", u)
				}
			})
		}
	}
}
