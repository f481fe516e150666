package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
)

// waitLimit bounds every wait for a condition; it is generous on purpose.
const waitLimit = 20 * time.Second

// Provider names the rig configures.
const (
	respProvider = "resp"
	chatProvider = "chat"
)

// rig is a Service wired to in-memory fakes.
type rig struct {
	t         *testing.T
	ctx       context.Context
	store     *memstore.Store
	provider  *fakes.Provider
	kernel    *fakes.Kernel
	config    *fakes.Config
	clock     *fakes.Clock
	svc       *engine.Service
	workspace string
	// tune, when set, adjusts the options of every service newService
	// makes.
	tune func(*engine.Options)
}

// newRig returns a service whose provider answers with script. Two
// providers are configured: "resp" (Responses, active) and "chat" (Chat
// Completions).
func newRig(t *testing.T, script func(albedo.ModelRequest) fakes.Reply) *rig {
	t.Helper()
	r := &rig{
		t:         t,
		ctx:       t.Context(),
		store:     memstore.New(),
		provider:  fakes.NewProvider(script),
		kernel:    fakes.NewKernel(),
		clock:     fakes.NewClock(time.UnixMilli(1_700_000_000_000), time.Millisecond),
		workspace: t.TempDir(),
		config: fakes.NewConfig(respProvider,
			albedo.ProviderConfig{Name: respProvider, BaseURL: "http://resp.invalid/v1", APIKey: "k1", Model: "resp-model", Protocol: albedo.ProtocolResponses},
			albedo.ProviderConfig{Name: chatProvider, BaseURL: "http://chat.invalid/v1", APIKey: "k2", Model: "chat-model", Protocol: albedo.ProtocolChatCompletions},
		),
	}
	r.svc = r.newService()
	return r
}

// newService returns another service over the rig's ports, as a restarted
// daemon would have.
func (r *rig) newService() *engine.Service {
	opts := engine.Options{Workspaces: localfs.Workspaces{}, Store: r.store, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock}
	if r.tune != nil {
		r.tune(&opts)
	}
	svc := engine.New(opts)
	r.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			r.t.Errorf("close service: %v", err)
		}
	})
	return svc
}

// session creates a session bound to provider in the rig's workspace.
func (r *rig) session(provider string) albedo.Session {
	r.t.Helper()
	sess, err := r.svc.CreateSession(r.ctx, r.workspace, provider)
	if err != nil {
		r.t.Fatalf("create session: %v", err)
	}
	return sess
}

// send sends text and fails the test on error.
func (r *rig) send(id, text string) (queued bool) {
	r.t.Helper()
	queued, err := r.svc.Send(r.ctx, id, albedo.Message{Text: text})
	if err != nil {
		r.t.Fatalf("send %q: %v", text, err)
	}
	return queued
}

// turn sends text and waits until the session is idle again.
func (r *rig) turn(id, text string) {
	r.t.Helper()
	r.send(id, text)
	r.waitIdle(id)
}

// sessionAfter creates a session bound to provider and runs a whole turn
// for each message, in order.
func (r *rig) sessionAfter(provider string, messages ...string) albedo.Session {
	r.t.Helper()
	sess := r.session(provider)
	for _, m := range messages {
		r.turn(sess.ID, m)
	}
	return sess
}

// wantNoErrors fails unless the session's transcript holds no error item.
func (r *rig) wantNoErrors(id, when string) {
	r.t.Helper()
	if errs := ofKind(r.history(id), albedo.KindError); len(errs) != 0 {
		r.t.Errorf("errors %s: %+v; want none", when, errs)
	}
}

// waitIdle waits until the session runs no turn.
func (r *rig) waitIdle(id string) {
	r.t.Helper()
	waitFor(r.t, "session "+id+" to be idle", func() bool {
		running, err := r.svc.Running(r.ctx, id)
		return err == nil && !running
	})
}

// history returns a session's transcript.
func (r *rig) history(id string) []albedo.Item {
	r.t.Helper()
	items, err := r.svc.History(r.ctx, id)
	if err != nil {
		r.t.Fatalf("history: %v", err)
	}
	return items
}

// get returns a session.
func (r *rig) get(id string) albedo.Session {
	r.t.Helper()
	sess, err := r.svc.Session(r.ctx, id)
	if err != nil {
		r.t.Fatalf("session %s: %v", id, err)
	}
	return sess
}

// fixtureService returns a service on the real clock over a fresh
// in-memory store, kernel and one provider "fixture" speaking protocol;
// tune, when set, adjusts its options first. The test's end closes it.
func fixtureService(t *testing.T, provider *fakes.Provider, kernel *fakes.Kernel, protocol albedo.Protocol, tune func(*engine.Options)) *engine.Service {
	t.Helper()
	config := fakes.NewConfig("fixture", albedo.ProviderConfig{Name: "fixture", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Protocol: protocol})
	opts := engine.Options{Workspaces: localfs.Workspaces{}, Store: memstore.New(), Provider: provider, Kernel: kernel, Config: config}
	if tune != nil {
		tune(&opts)
	}
	svc := engine.New(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			t.Errorf("close service: %v", err)
		}
	})
	return svc
}

// newSessionOf creates a session of svc in workspace.
func newSessionOf(t testing.TB, svc *engine.Service, workspace string) albedo.Session {
	t.Helper()
	sess, err := svc.CreateSession(t.Context(), workspace, "")
	if err != nil {
		t.Fatalf("create session: %v", err)
	}
	return sess
}

// turnOf sends text to a session of svc, waits until its turn has ended
// and returns the session's transcript.
func turnOf(t testing.TB, svc *engine.Service, id, text string) []albedo.Item {
	t.Helper()
	if _, err := svc.Send(t.Context(), id, albedo.Message{Text: text}); err != nil {
		t.Fatalf("send %q: %v", text, err)
	}
	if err := svc.Wait(t.Context(), id); err != nil {
		t.Fatalf("wait for the turn of %q: %v", text, err)
	}
	items, err := svc.History(t.Context(), id)
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	return items
}

// waitFor polls cond until it holds, failing the test after waitLimit.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// script answers requests from a list in order, then with fallback.
func script(fallback fakes.Reply, replies ...fakes.Reply) func(albedo.ModelRequest) fakes.Reply {
	n := 0
	return func(albedo.ModelRequest) fakes.Reply {
		n++
		if n <= len(replies) {
			return replies[n-1]
		}
		return fallback
	}
}

// kinds lists the kinds of items.
func kinds(items []albedo.Item) []albedo.ItemKind {
	out := make([]albedo.ItemKind, len(items))
	for i, it := range items {
		out[i] = it.Kind
	}
	return out
}

// ofKind returns the items of one kind.
func ofKind(items []albedo.Item, k albedo.ItemKind) []albedo.Item {
	var out []albedo.Item
	for _, it := range items {
		if it.Kind == k {
			out = append(out, it)
		}
	}
	return out
}

// checkPaired fails unless every call has exactly one output after it and
// every output answers an earlier call.
func checkPaired(t testing.TB, items []albedo.Item) {
	t.Helper()
	calls := map[string]int{}
	answered := map[string]int{}
	for _, it := range items {
		switch it.Kind {
		case albedo.KindToolCall:
			calls[it.CallID]++
		case albedo.KindToolOutput:
			if calls[it.CallID] == 0 {
				t.Errorf("output %d answers no earlier call %q", it.Seq, it.CallID)
			}
			answered[it.CallID]++
		}
	}
	for id, n := range calls {
		if answered[id] != n {
			t.Errorf("call %q: %d calls, %d outputs", id, n, answered[id])
		}
	}
}

// wantCode fails unless err carries code.
func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if got := albedo.ErrorCode(err); got != code {
		t.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

// errorIs reports whether err has code.
func errorIs(err error, code string) bool {
	var e *albedo.Error
	return errors.As(err, &e) && e.Code == code
}

// fataler is what the input helpers need of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// inputMsg is a projected input entry of either protocol, decoded loosely.
type inputMsg struct {
	Type       string            `json:"type"`
	Role       string            `json:"role"`
	CallID     string            `json:"call_id"`
	Output     string            `json:"output"`
	ToolCallID string            `json:"tool_call_id"`
	Content    json.RawMessage   `json:"content"`
	ToolCalls  []json.RawMessage `json:"tool_calls"`
	Name       string            `json:"name"`
	Arguments  string            `json:"arguments"`
}

func decodeInput(t fataler, input []json.RawMessage) []inputMsg {
	t.Helper()
	out := make([]inputMsg, len(input))
	for i, raw := range input {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatalf("input %d %s: %v", i, raw, err)
		}
	}
	return out
}

// text returns a message's text: its content string, or its first text
// part (input_text, output_text or text).
func (m inputMsg) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) == nil {
		for _, p := range parts {
			if strings.HasSuffix(p.Type, "text") {
				return p.Text
			}
		}
	}
	return ""
}

// userTexts returns the texts of the user messages of a projected input.
func userTexts(t fataler, input []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, m := range decodeInput(t, input) {
		if m.Role == "user" {
			out = append(out, m.text())
		}
	}
	return out
}

// lastUserText returns the text of the last user message of an input.
func lastUserText(t fataler, input []json.RawMessage) string {
	t.Helper()
	texts := userTexts(t, input)
	if len(texts) == 0 {
		t.Fatalf("input has no user message")
	}
	return texts[len(texts)-1]
}

// outputsIn returns the tool outputs of a projected input keyed by call id.
func outputsIn(t fataler, input []json.RawMessage) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range decodeInput(t, input) {
		switch {
		case m.Type == "function_call_output":
			out[m.CallID] = m.Output
		case m.Role == "tool":
			out[m.ToolCallID] = m.text()
		}
	}
	return out
}

// mkdir makes a folder under dir and returns its path.
func mkdir(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFile makes a file under dir and returns its path.
func writeFile(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// equalKinds fails unless items have exactly the given kinds.
func equalKinds(t testing.TB, items []albedo.Item, want ...albedo.ItemKind) {
	t.Helper()
	if got := kinds(items); !slices.Equal(got, want) {
		t.Fatalf("kinds = %v, want %v", got, want)
	}
}

// displayEvents derives the display events of a transcript, in order, as
// a session's history shows them: images a cell showed have no event of
// their own (the tool event's result describes them).
func displayEvents(items []albedo.Item) []albedo.Event {
	code := make(map[string]string)
	out := make([]albedo.Event, 0, len(items))
	for _, it := range items {
		if it.Kind == albedo.KindToolCall {
			code[it.CallID] = albedo.CallCode(it)
		}
		if it.Kind.Displayed() {
			out = append(out, albedo.EventOf(it, code[it.CallID]))
		}
	}
	return out
}
