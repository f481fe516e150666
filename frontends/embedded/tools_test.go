package embedded_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/openai"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/embedded"
)

// call is a tool call a scripted model makes.
type call struct{ id, name, args string }

// toolModel is an OpenAI-compatible server of either protocol that answers
// its first request with calls and every later one with text, and keeps
// the bodies of the requests it got.
type toolModel struct {
	protocol albedo.Protocol
	calls    []call
	mu       sync.Mutex
	bodies   []map[string]any
}

func (m *toolModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	first := len(m.bodies) == 1
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range m.events(first) {
		fmt.Fprintf(w, "data: %s\n\n", ev)
	}
}

// events streams the calls (first) or a text answer in the protocol.
func (m *toolModel) events(first bool) []string {
	if m.protocol == albedo.ProtocolChatCompletions {
		delta := map[string]any{"content": "done"}
		finish := "stop"
		if first {
			var calls []any
			for i, c := range m.calls {
				calls = append(calls, map[string]any{"index": i, "id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
			}
			delta, finish = map[string]any{"tool_calls": calls}, "tool_calls"
		}
		return []string{
			mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta}}}),
			mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}}),
			"[DONE]",
		}
	}
	output := []any{map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "done"}}}}
	if first {
		output = nil
		for _, c := range m.calls {
			output = append(output, map[string]any{"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.args})
		}
	}
	return []string{mustJSON(map[string]any{"type": "response.completed", "response": map[string]any{"status": "completed", "output": output}})}
}

// toolNames are the names of the tools a request offered, in order.
func toolNames(body map[string]any) []string {
	var names []string
	for _, t := range body["tools"].([]any) {
		t := t.(map[string]any)
		if fn, ok := t["function"].(map[string]any); ok { // Chat Completions
			t = fn
		}
		names = append(names, t["name"].(string))
	}
	return names
}

// pairs reads the tool calls of a request's input and the outputs that
// follow them: the output of each call by its id, and the ids in the
// order they appear, calls before their outputs.
func pairs(protocol albedo.Protocol, body map[string]any) (outputs map[string]string, order []string) {
	outputs = map[string]string{}
	key := "input"
	if protocol == albedo.ProtocolChatCompletions {
		key = "messages"
	}
	for _, it := range body[key].([]any) {
		it := it.(map[string]any)
		switch {
		case it["type"] == "function_call":
			order = append(order, "call "+it["call_id"].(string))
		case it["type"] == "function_call_output":
			order = append(order, "output "+it["call_id"].(string))
			outputs[it["call_id"].(string)] = it["output"].(string)
		case it["role"] == "assistant" && it["tool_calls"] != nil:
			for _, c := range it["tool_calls"].([]any) {
				order = append(order, "call "+c.(map[string]any)["id"].(string))
			}
		case it["role"] == "tool":
			order = append(order, "output "+it["tool_call_id"].(string))
			outputs[it["tool_call_id"].(string)] = it["content"].(string)
		}
	}
	return outputs, order
}

// programKernel is a program's own kernel: it runs only a call of the
// stamp host call, through the host the cell carries.
type programKernel struct {
	mu      sync.Mutex
	offered [][]albedo.HostCallDecl
}

func (k *programKernel) Run(ctx context.Context, cell albedo.Cell) (albedo.CellResult, error) {
	k.mu.Lock()
	k.offered = append(k.offered, cell.HostCalls)
	k.mu.Unlock()
	if cell.Code != "await stamp('from python')" || cell.Host == nil {
		return albedo.CellResult{Status: albedo.CellError, Error: "this kernel runs only await stamp('from python')"}, nil
	}
	out, err := cell.Host(ctx, "stamp", json.RawMessage(`{"label":"from python"}`))
	if err != nil {
		return albedo.CellResult{Status: albedo.CellError, Error: err.Error()}, nil
	}
	return albedo.CellResult{Status: albedo.CellOK, Value: string(out)}, nil
}
func (k *programKernel) Stop(context.Context, string) error { return nil }
func (k *programKernel) Close(context.Context) error        { return nil }
func (k *programKernel) RunningJobs(string) int             { return 0 }

// TestAProgramsOwnToolAndHostCall embeds albedo with a clock tool and a
// stamp host call, both reading an injected clock, and a model (over HTTP,
// in each protocol) that calls clock, python (whose cell calls stamp) and
// a tool nobody registered, all at once. The next request carries every
// output paired with its call, and the history shows them.
func TestAProgramsOwnToolAndHostCall(t *testing.T) {
	at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	clock := fakes.NewClock(at, 0)
	clockTool := albedo.ToolDef{
		Tool: albedo.Tool{
			Name:        "clock",
			Description: "Tells the current time in UTC, RFC 3339.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		},
		Handler: func(ctx context.Context, call albedo.ToolCall) (string, error) {
			return clock.Now().UTC().Format(time.RFC3339), nil
		},
	}
	stamp := albedo.HostCall{
		HostCallDecl: albedo.HostCallDecl{Name: "stamp", Doc: "Stamps a label with the time.", Params: []albedo.HostParam{{Name: "label"}}},
		Func: func(ctx context.Context, sessionID string, args json.RawMessage) (any, error) {
			var a struct{ Label string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return a.Label + " at " + clock.Now().UTC().Format(time.RFC3339), nil
		},
	}
	kernels := map[string]func(t *testing.T) (albedo.Kernel, func() [][]albedo.HostCallDecl){
		"a program's kernel": func(*testing.T) (albedo.Kernel, func() [][]albedo.HostCallDecl) {
			k := &programKernel{}
			return k, func() [][]albedo.HostCallDecl { k.mu.Lock(); defer k.mu.Unlock(); return k.offered }
		},
		"the python kernel": func(t *testing.T) (albedo.Kernel, func() [][]albedo.HostCallDecl) {
			if _, err := exec.LookPath("python3"); err != nil {
				t.Skip("python3 is needed")
			}
			return nil, nil
		},
	}
	for _, protocol := range []albedo.Protocol{albedo.ProtocolResponses, albedo.ProtocolChatCompletions} {
		for kernelName, newKernel := range kernels {
			t.Run(string(protocol)+"/"+kernelName, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				model := &toolModel{protocol: protocol, calls: []call{
					{"call-clock", "clock", `{}`},
					{"call-py", "python", `{"code":"await stamp('from python')"}`},
					{"call-shell", "shell", `{"cmd":"date"}`},
				}}
				srv := httptest.NewServer(model)
				defer srv.Close()
				kernel, offered := newKernel(t)
				config := fakes.NewConfig("p", albedo.ProviderConfig{Name: "p", BaseURL: srv.URL, APIKey: "k", Model: "m", Protocol: protocol})
				a := mustOpen(t, embedded.Options{
					Home: t.TempDir(), Store: memstore.New(), Provider: openai.New(openai.Options{}), Kernel: kernel, Config: config,
					Clock: clock, Tools: []albedo.ToolDef{clockTool}, HostCalls: []albedo.HostCall{stamp},
				})
				s, err := a.CreateSession(ctx, t.TempDir(), "")
				if err != nil {
					t.Fatal(err)
				}
				runTurn(t, a, s.ID, "what time is it?")

				model.mu.Lock()
				bodies := slices.Clone(model.bodies)
				model.mu.Unlock()
				if len(bodies) != 2 {
					t.Fatalf("%d model requests, want 2", len(bodies))
				}
				if got := toolNames(bodies[0]); !slices.Equal(got, []string{"python", "clock"}) {
					t.Errorf("tools offered = %v, want python first, then clock", got)
				}
				outputs, order := pairs(protocol, bodies[1])
				wantOrder := []string{"call call-clock", "call call-py", "call call-shell", "output call-clock", "output call-py", "output call-shell"}
				if !slices.Equal(order, wantOrder) {
					t.Errorf("second request's calls and outputs = %v, want %v", order, wantOrder)
				}
				now := at.Format(time.RFC3339)
				if outputs["call-clock"] != now {
					t.Errorf("clock output = %q, want %q", outputs["call-clock"], now)
				}
				if !strings.Contains(outputs["call-py"], "from python at "+now) || !strings.Contains(outputs["call-py"], `"status":"ok"`) {
					t.Errorf("python output = %q, want the stamp host call's answer", outputs["call-py"])
				}
				if !strings.Contains(outputs["call-shell"], `unknown tool \"shell\": the tools are python, clock`) {
					t.Errorf("output of the unknown tool = %q, want a clear error", outputs["call-shell"])
				}
				if offered != nil {
					got := offered()
					if len(got) != 1 || !slices.ContainsFunc(got[0], func(d albedo.HostCallDecl) bool { return d.Name == "stamp" && len(d.Params) == 1 }) ||
						!slices.ContainsFunc(got[0], func(d albedo.HostCallDecl) bool { return d.Name == "vent" }) {
						t.Errorf("host calls the kernel was given = %+v, want albedo's and stamp", got)
					}
				}

				history, err := a.History(ctx, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				shown := map[string]string{}
				for _, h := range history {
					if h.Tool == nil {
						continue
					}
					var text strings.Builder
					for _, c := range h.Content {
						text.WriteString(c.Text + c.Value)
					}
					shown[h.Kind+" "+h.Tool.Name+" "+h.CallID] = text.String()
				}
				for key, want := range map[string]string{
					"tool_call clock call-clock":   "",
					"tool_result clock call-clock": now,
					"tool_result python call-py":   "from python at " + now,
					"tool_result shell call-shell": "unknown tool",
				} {
					got, ok := shown[key]
					if !ok || !strings.Contains(got, want) {
						t.Errorf("history %q = %q (there: %v), want it to hold %q; history: %v", key, got, ok, want, shown)
					}
				}
			})
		}
	}
}
