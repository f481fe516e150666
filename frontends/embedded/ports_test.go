package embedded_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/embedded"
)

// calculator is a provider an embedding program might write itself: it
// asks for one Python cell, then answers with what the cell printed. Its
// items carry neutral fields only, no provider-native JSON.
type calculator struct {
	mu       sync.Mutex
	requests []albedo.ModelRequest
}

func (p *calculator) Stream(ctx context.Context, req albedo.ModelRequest, onDelta func(albedo.Delta)) (albedo.ModelReply, error) {
	p.mu.Lock()
	p.requests = append(p.requests, req)
	n := len(p.requests)
	p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return albedo.ModelReply{}, err
	}
	if n == 1 {
		args := `{"code": "print(6 * 7)"}`
		onDelta(albedo.Delta{Kind: albedo.DeltaToolCall, Text: args})
		return albedo.ModelReply{Items: []albedo.Item{{Kind: albedo.KindToolCall, CallID: "calc-1", ToolName: "python", Arguments: args}}}, nil
	}
	// The last input message is the tool output, projected from neutral
	// fields into the request's protocol.
	last := string(req.Input[len(req.Input)-1])
	answer := "no result"
	if strings.Contains(last, "42") {
		answer = "The answer is 42."
	}
	onDelta(albedo.Delta{Kind: albedo.DeltaText, Text: answer})
	return albedo.ModelReply{Items: []albedo.Item{{Kind: albedo.KindAssistant, Text: answer}}, Usage: albedo.Usage{InputTokens: new(int64(10)), OutputTokens: new(int64(5))}}, nil
}

// evaluator is a kernel an embedding program might write itself: it
// "runs" print(6 * 7) and nothing else.
type evaluator struct {
	mu     sync.Mutex
	cells  []albedo.Cell
	closed bool
}

func (k *evaluator) Run(_ context.Context, cell albedo.Cell) (albedo.CellResult, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.cells = append(k.cells, cell)
	if cell.Code == "print(6 * 7)" {
		return albedo.CellResult{Status: albedo.CellOK, Output: "42\n"}, nil
	}
	return albedo.CellResult{Status: albedo.CellError, Error: "NameError"}, nil
}

func (k *evaluator) Stop(context.Context, string) error { return nil }

func (k *evaluator) RunningJobs(string) int { return 0 }

func (k *evaluator) Close(context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	return nil
}

// programStore is the program's own store: memstore, remembering Close.
type programStore struct {
	*memstore.Store
	closed bool
}

func (s *programStore) Close() error {
	s.closed = true
	return nil
}

// TestOwnPorts runs a whole turn with a tool call on a program's own
// store, provider and kernel, and checks that Close leaves them to it.
func TestOwnPorts(t *testing.T) {
	ctx := context.Background()
	store := &programStore{Store: memstore.New()}
	provider := &calculator{}
	kernel := &evaluator{}
	config := fakes.NewConfig("mine", albedo.ProviderConfig{Name: "mine", Model: "calc-1", Protocol: albedo.ProtocolResponses})
	a, err := embedded.Open(ctx, embedded.Options{Store: store, Provider: provider, Kernel: kernel, Config: config})
	if err != nil {
		t.Fatal(err)
	}
	workspace := t.TempDir()
	s, err := a.CreateSession(ctx, workspace, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Provider != "mine" || s.Model != "calc-1" || s.Protocol != "responses" || s.Workspace != workspace {
		t.Errorf("session = %+v", s)
	}
	queued, err := a.Send(ctx, s.ID, "What is 6 × 7?", nil)
	if err != nil || queued {
		t.Fatalf("send: queued %v, err %v", queued, err)
	}
	if err := a.Wait(ctx, s.ID); err != nil {
		t.Fatal(err)
	}

	if len(kernel.cells) != 1 || kernel.cells[0].Code != "print(6 * 7)" || kernel.cells[0].Workspace != workspace || kernel.cells[0].SessionID != s.ID {
		t.Errorf("cells = %+v", kernel.cells)
	}
	if len(provider.requests) != 2 {
		t.Fatalf("provider got %d requests, want 2", len(provider.requests))
	}
	if ep := provider.requests[1].Endpoint; ep.Provider != "mine" || ep.Model != "calc-1" || ep.Protocol != albedo.ProtocolResponses {
		t.Errorf("endpoint = %+v", ep)
	}
	history, err := a.History(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range history {
		kinds = append(kinds, it.Kind)
	}
	if got, want := strings.Join(kinds, " "), "user tool_call tool_result assistant turn"; got != want {
		t.Errorf("history kinds = %q, want %q", got, want)
	}
	var result albedo.CellResult
	if err := json.Unmarshal([]byte(history[2].Content[0].Value), &result); err != nil || result.Output != "42\n" || history[2].CallID != "calc-1" {
		t.Errorf("tool result = %+v (%v)", history[2], err)
	}
	if history[3].Text != "The answer is 42." {
		t.Errorf("answer = %q", history[3].Text)
	}
	// The store holds what the API shows.
	items, err := store.Items(ctx, s.ID, 0, 0)
	if err != nil || len(items) != len(history) {
		t.Errorf("store holds %d items (%v), history %d", len(items), err, len(history))
	}

	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if kernel.closed {
		t.Error("Close closed the program's own kernel")
	}
	if store.closed {
		t.Error("Close closed the program's own store")
	}
}
