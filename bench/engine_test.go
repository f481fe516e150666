// Package bench holds albedo's benchmarks that span packages: the turn
// engine over the real SQLite store, request building and stream snapshots.
// Run them with `go test -bench . ./bench`; bench.py covers the binary.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/projection"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// toolRounds is how many tool calls one benchmarked turn makes.
const toolRounds = 105

// instantProvider calls python until a turn has toolRounds outputs, then
// answers; it does no work of its own beyond counting.
type instantProvider struct{ calls int }

func (p *instantProvider) Stream(_ context.Context, req albedo.ModelRequest, _ func(albedo.Delta)) (albedo.ModelReply, error) {
	outputs := 0
	for _, raw := range req.Input {
		var m struct {
			Role string `json:"role"`
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &m)
		if m.Role == "tool" || m.Type == "function_call_output" {
			outputs++
		}
	}
	if outputs >= toolRounds {
		return albedo.ModelReply{Items: []albedo.Item{{Kind: albedo.KindAssistant, Text: "done"}}}, nil
	}
	p.calls++
	id := fmt.Sprintf("call-%d", p.calls)
	return albedo.ModelReply{Items: []albedo.Item{{Kind: albedo.KindToolCall, CallID: id, ToolName: "python", Arguments: `{"code":"1"}`}}}, nil
}

// instantKernel answers every cell at once.
type instantKernel struct{}

func (instantKernel) Run(context.Context, albedo.Cell) (albedo.CellResult, error) {
	return albedo.CellResult{Status: albedo.CellOK, Value: "1"}, nil
}
func (instantKernel) Stop(context.Context, string) error { return nil }
func (instantKernel) Close(context.Context) error        { return nil }
func (instantKernel) RunningJobs(string) int             { return 0 }

func openStore(b *testing.B) *sqlite.Store {
	b.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "albedo.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	return store
}

func config() *fakes.Config {
	return fakes.NewConfig("fixture", albedo.ProviderConfig{Name: "fixture", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Protocol: albedo.ProtocolChatCompletions})
}

// BenchmarkToolTurn measures albedo's own overhead per tool round: a turn
// of 105 tool calls against an instant provider and an instant kernel, over
// the real SQLite store. The provider and kernel take no time, so all of
// the time is albedo's; ms/tool-turn is the figure to read.
func BenchmarkToolTurn(b *testing.B) {
	ctx := context.Background()
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: openStore(b), Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()})
	defer svc.Close(ctx)
	workspace := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		sess, err := svc.CreateSession(ctx, workspace, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := svc.Send(ctx, sess.ID, albedo.Message{Text: "go"}); err != nil {
			b.Fatal(err)
		}
		if err := svc.Wait(ctx, sess.ID); err != nil {
			b.Fatal(err)
		}
	}
	perTurn := b.Elapsed().Seconds() * 1000 / float64(b.N*toolRounds)
	b.ReportMetric(perTurn, "ms/tool-turn")
}

// transcript returns n items shaped like a long working session.
func transcript(n int) []albedo.Item {
	items := make([]albedo.Item, 0, n)
	for i := 0; len(items) < n; i++ {
		id := fmt.Sprintf("call-%d", i)
		res := albedo.CellResult{Status: albedo.CellOK, Output: "line of output\nanother line\n"}
		out, _ := json.Marshal(res)
		items = append(items,
			albedo.Item{Kind: albedo.KindUser, Text: "please look at file number " + id, Timestamp: int64(i)},
			albedo.Item{Kind: albedo.KindReasoning, Text: "thinking about it", Protocol: albedo.ProtocolResponses, Raw: json.RawMessage(`{"type":"reasoning","summary":[]}`)},
			albedo.Item{Kind: albedo.KindToolCall, CallID: id, ToolName: "python", Arguments: `{"code":"print(open('x').read())"}`, Protocol: albedo.ProtocolResponses, Raw: json.RawMessage(`{"type":"function_call","call_id":"` + id + `","name":"python","arguments":"{}"}`)},
			albedo.Item{Kind: albedo.KindToolOutput, CallID: id, ToolName: "python", Text: string(out), Result: &res},
			albedo.Item{Kind: albedo.KindAssistant, Text: "Here is what the file says.", Protocol: albedo.ProtocolChatCompletions},
		)
	}
	return items[:n]
}

// BenchmarkProject10k measures building a request's input from a
// 10,000-item transcript, in each protocol.
func BenchmarkProject10k(b *testing.B) {
	items := transcript(10_000)
	for _, p := range []albedo.Protocol{albedo.ProtocolChatCompletions, albedo.ProtocolResponses} {
		b.Run(string(p), func(b *testing.B) {
			for b.Loop() {
				if len(projection.Project(items, p)) == 0 {
					b.Fatal("empty projection")
				}
			}
		})
	}
}

// BenchmarkSnapshot10k measures the first page of a stream: subscribing to
// an idle session of 10,000 events (read from SQLite) and encoding the
// snapshot as JSON.
func BenchmarkSnapshot10k(b *testing.B) {
	ctx := context.Background()
	store := openStore(b)
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()})
	defer svc.Close(ctx)
	sess := storeSession(b, svc, store, 10_000)
	b.ResetTimer()
	for b.Loop() {
		sub, err := svc.Subscribe(ctx, sess.ID)
		if err != nil {
			b.Fatal(err)
		}
		data, err := json.Marshal(map[string]any{"events": sub.Snapshot})
		if err != nil || len(sub.Snapshot) != 10_000 {
			b.Fatal(err, len(sub.Snapshot))
		}
		_ = data
		sub.Close()
	}
}

// BenchmarkSnapshot10kCold is BenchmarkSnapshot10k for a session whose
// transcript is not in memory: each subscription reads it from SQLite.
func BenchmarkSnapshot10kCold(b *testing.B) {
	ctx := context.Background()
	store := openStore(b)
	seed := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()})
	sess := storeSession(b, seed, store, 10_000)
	b.ResetTimer()
	for b.Loop() {
		svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()})
		sub, err := svc.Subscribe(ctx, sess.ID)
		if err != nil || len(sub.Snapshot) != 10_000 {
			b.Fatal(err)
		}
		if _, err := json.Marshal(map[string]any{"events": sub.Snapshot}); err != nil {
			b.Fatal(err)
		}
		sub.Close()
	}
}

// storeSession creates a session holding n transcript items.
func storeSession(b *testing.B, svc *engine.Service, store albedo.Store, n int) albedo.Session {
	b.Helper()
	ctx := context.Background()
	sess, err := svc.CreateSession(ctx, b.TempDir(), "")
	if err != nil {
		b.Fatal(err)
	}
	items := transcript(n)
	for i := 0; i < len(items); i += 500 {
		if _, err := store.Commit(ctx, albedo.Commit{SessionID: sess.ID, Items: items[i:min(i+500, len(items))]}); err != nil {
			b.Fatal(err)
		}
	}
	return sess
}
