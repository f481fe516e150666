package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// request is what the fake provider saw of one request.
type request struct {
	Path          string
	Authorization string
	Accept        string
	ContentType   string
	Body          map[string]any
}

// provider is a fake model server; answer writes the reply to request n
// (counted from 1).
type provider struct {
	*httptest.Server
	mu       sync.Mutex
	requests []request
}

func newProvider(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int)) *provider {
	t.Helper()
	p := &provider{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v: %s", err, raw)
		}
		p.mu.Lock()
		p.requests = append(p.requests, request{
			Path:          r.URL.Path,
			Authorization: r.Header.Get("Authorization"),
			Accept:        r.Header.Get("Accept"),
			ContentType:   r.Header.Get("Content-Type"),
			Body:          body,
		})
		n := len(p.requests)
		p.mu.Unlock()
		answer(w, r, n)
	}))
	t.Cleanup(p.Close)
	return p
}

// seen returns the requests received so far.
func (p *provider) seen() []request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]request(nil), p.requests...)
}

// streamEvents answers with an event stream of the given raw SSE blocks,
// flushing each.
func streamEvents(w http.ResponseWriter, blocks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, b := range blocks {
		_, _ = io.WriteString(w, b)
		w.(http.Flusher).Flush()
	}
}

// data renders v as one "data:" event.
func data(v any) string {
	if s, ok := v.(string); ok {
		return "data: " + s + "\n\n"
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return "data: " + string(b) + "\n\n"
}

// named renders v as an event with an "event:" line naming its type.
func named(v map[string]any) string {
	return fmt.Sprintf("event: %s\n", v["type"]) + data(v)
}

// pieces cuts s into chunks of n bytes.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// pythonArgs are the arguments of the python tool call the fixtures make.
const pythonArgs = `{"code": "import os\nprint(os.getcwd())", "timeout_ms": 60000}`

// chatCallStream streams a reasoning fragment and a python call whose
// arguments arrive in 20-byte pieces, as the contract's fixtures do.
func chatCallStream(callID string) []string {
	blocks := []string{
		data(map[string]any{"id": "r1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant"}, "finish_reason": nil}}}),
		data(map[string]any{"id": "r1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"reasoning_content": "reasoning about "}, "finish_reason": nil}}}),
		data(map[string]any{"id": "r1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"reasoning_content": "the task"}, "finish_reason": nil}}}),
	}
	for i, piece := range pieces(pythonArgs, 20) {
		fn := map[string]any{"arguments": piece}
		call := map[string]any{"index": 0, "function": fn}
		if i == 0 {
			fn["name"] = "python"
			call["type"] = "function"
			if callID != "" {
				call["id"] = callID
			}
		}
		blocks = append(blocks, data(map[string]any{"id": "r1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{call}}, "finish_reason": nil}}}))
	}
	return append(blocks,
		data(map[string]any{"id": "r1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "tool_calls"}}}),
		data(map[string]any{"id": "r1", "choices": []any{}, "usage": map[string]any{"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33}}),
		data("[DONE]"),
	)
}

// chatText streams an assistant text in pieces.
func chatText(text string) []string {
	var blocks []string
	for _, piece := range pieces(text, 3) {
		blocks = append(blocks, data(map[string]any{"id": "r2", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": piece}, "finish_reason": nil}}}))
	}
	return append(blocks,
		data(map[string]any{"id": "r2", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}}),
		data("[DONE]"),
	)
}

// Output items of the Responses fixtures, as the provider sends them.
const (
	rsItem  = `{"id":"rs1","type":"reasoning","summary":[{"type":"summary_text","text":"reasoning about the task"}]}`
	fcItem  = `{"id":"fc1","type":"function_call","call_id":"call-1","name":"python","arguments":"{\"code\": \"import os\\nprint(os.getcwd())\", \"timeout_ms\": 60000}","status":"completed"}`
	msgItem = `{"id":"m1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"finished","annotations":[],"logprobs":[]}]}`
)

// responsesToolCall streams reasoning and a python call the way the
// contract's older fixture does: every delta claims output_index 0, while
// the final output puts the call at index 1.
func responsesToolCall() []string {
	blocks := []string{
		named(map[string]any{"type": "response.created", "response": map[string]any{"id": "r1"}}),
		named(map[string]any{"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "reasoning about "}),
		named(map[string]any{"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "the task"}),
	}
	for _, piece := range pieces(pythonArgs, 20) {
		blocks = append(blocks, data(map[string]any{"type": "response.function_call_arguments.delta", "output_index": 0, "delta": piece}))
	}
	return append(blocks, data(`{"type":"response.completed","response":{"id":"r1","status":"completed","output":[`+rsItem+`,`+fcItem+`],"usage":{"input_tokens":10,"output_tokens":20}}}`))
}

// responsesText streams an assistant text.
func responsesText() []string {
	return []string{
		named(map[string]any{"type": "response.created", "response": map[string]any{"id": "r2"}}),
		named(map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "fini"}),
		named(map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "shed"}),
		`event: response.completed` + "\n" + data(`{"type":"response.completed","response":{"id":"r2","status":"completed","output":[`+msgItem+`],"usage":{"input_tokens":5,"output_tokens":1}}}`),
	}
}

// endpoint returns an endpoint of p speaking protocol.
func endpoint(p *provider, protocol albedo.Protocol) albedo.Endpoint {
	return albedo.Endpoint{Provider: "fixture", BaseURL: p.URL + "/v1/", APIKey: "fixture-key", Model: "fixture-model", Protocol: protocol}
}

// deltas collects streamed fragments per kind.
type deltas struct {
	mu   sync.Mutex
	all  []albedo.Delta
	text map[albedo.DeltaKind]string
}

func (d *deltas) add(x albedo.Delta) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.text == nil {
		d.text = map[albedo.DeltaKind]string{}
	}
	d.all = append(d.all, x)
	d.text[x.Kind] += x.Text
}

// fastClient returns a client that retries without real waits.
func fastClient(opts Options) *Client {
	if opts.BaseBackoff == 0 {
		opts.BaseBackoff = time.Millisecond
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 2 * time.Millisecond
	}
	return New(opts)
}

// wantItem is an expected reply item; Raw is compared as JSON.
type wantItem struct {
	Kind      albedo.ItemKind
	Text      string
	CallID    string
	ToolName  string
	Arguments string
	Raw       string
}

// checkItems compares a reply's items with want.
func checkItems(t *testing.T, got []albedo.Item, protocol albedo.Protocol, want []wantItem) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d items %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.Kind || g.Text != w.Text || g.CallID != w.CallID || g.ToolName != w.ToolName || g.Arguments != w.Arguments {
			t.Errorf("item %d = {%s %q %q %q %q}, want %+v", i, g.Kind, g.Text, g.CallID, g.ToolName, g.Arguments, w)
		}
		if g.Protocol != protocol {
			t.Errorf("item %d protocol = %q, want %q", i, g.Protocol, protocol)
		}
		if w.Raw != "" && !sameJSON(string(g.Raw), storedForm(w.Raw)) {
			t.Errorf("item %d raw = %s, want %s", i, g.Raw, w.Raw)
		}
		if textIsNative(g) && len(g.Raw) > 0 {
			t.Errorf("item %d (%s) carries raw %s besides its text", i, g.Kind, g.Raw)
		}
	}
}

// textIsNative reports whether an item's native form follows from its
// fields alone, so that it carries no Raw: every Chat Completions item
// (answers and reasoning from their text, tool calls from their id, name
// and arguments), and a Responses item its stream never finished, which
// was made from its deltas alone.
func textIsNative(it albedo.Item) bool {
	return it.Protocol == albedo.ProtocolChatCompletions || it.Flags&albedo.FlagPartial != 0
}

// hasNativeForm reports whether an item carries valid native JSON, or needs
// none.
func hasNativeForm(it albedo.Item) bool {
	if textIsNative(it) {
		return len(it.Raw) == 0
	}
	return len(it.Raw) > 0 && json.Valid(it.Raw)
}

// sameJSON reports whether a and b encode the same value.
// storedForm is an output item as a reply keeps it: without the top-level
// id its provider gave it.
func storedForm(item string) string {
	var m map[string]any
	if json.Unmarshal([]byte(item), &m) != nil {
		return item
	}
	delete(m, "id")
	b, _ := json.Marshal(m)
	return string(b)
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// errorText returns err's text, failing when err is nil.
func errorText(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	return err.Error()
}

// mustContain fails unless s contains every part.
func mustContain(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%q does not contain %q", s, p)
		}
	}
}
