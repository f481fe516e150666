package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/projection"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// longTranscript returns n items shaped like a long working session:
// units of a user message, a call, its output and a text.
func longTranscript(n int) []albedo.Item {
	items := make([]albedo.Item, 0, n)
	for i := 0; len(items) < n; i++ {
		id := fmt.Sprint("call-", i)
		items = append(items,
			albedo.Item{Kind: albedo.KindUser, Text: "please look at file number " + id},
			albedo.Item{Kind: albedo.KindToolCall, CallID: id, ToolName: "python", Arguments: `{"code":"print(open('x').read())"}`},
			albedo.Item{Kind: albedo.KindToolOutput, CallID: id, ToolName: "python", Text: `{"status":"ok","output":"line of output\nanother line\n"}`},
			albedo.Item{Kind: albedo.KindAssistant, Text: "Here is what the file says."},
		)
	}
	items = items[:n]
	for i := range items {
		items[i].Seq = int64(i + 1)
	}
	return items
}

// BenchmarkPrepareInput10k measures projecting the input of a request over
// a 10,000-item transcript with a compaction state that summarises its
// first half, in each protocol: "fresh" projects the whole transcript (as
// every request did before the projection was kept), "kept" extends what
// the previous request projected by the one tool round appended since.
func BenchmarkPrepareInput10k(b *testing.B) {
	base := longTranscript(10_000)
	users := 0
	for _, it := range base {
		if it.Kind == albedo.KindUser {
			users++
		}
	}
	comp := &albedo.Compaction{Summary: strings.Repeat("what happened so far. ", 200), Users: users / 2, Fingerprint: compaction.Fingerprint(base, users/2)}
	for _, ep := range []albedo.Endpoint{{Protocol: chat}, {Protocol: resp}} {
		b.Run(string(ep.Protocol)+"/fresh", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(projection.ProjectCompacted(base, *comp, ep)) == 0 {
					b.Fatal("empty input")
				}
			}
		})
		b.Run(string(ep.Protocol)+"/kept", func(b *testing.B) {
			items := append([]albedo.Item(nil), base...)
			var proj engine.IncrementalProjection
			proj.Project(items, comp, ep)
			round := 0
			b.ReportAllocs()
			for b.Loop() {
				round++
				id := fmt.Sprint("round-", round)
				n := int64(len(items))
				items = append(items,
					albedo.Item{Seq: n + 1, Kind: albedo.KindToolCall, CallID: id, ToolName: "python", Arguments: `{"code":"1"}`},
					albedo.Item{Seq: n + 2, Kind: albedo.KindToolOutput, CallID: id, ToolName: "python", Text: `{"status":"ok"}`})
				if len(proj.Project(items, comp, ep)) == 0 {
					b.Fatal("empty input")
				}
			}
		})
	}
}

// BenchmarkMeasureContext10k measures the size estimate of the next
// request of a 10,000-item session whose last request carried all but its
// last tool round: what the compaction decision computes before every
// request.
func BenchmarkMeasureContext10k(b *testing.B) {
	items := longTranscript(10_000)
	in := int64(500_000)
	last := &albedo.RequestRow{Items: len(items) - 4, Bytes: 2_000_000, Usage: albedo.Usage{InputTokens: &in}}
	for _, p := range []albedo.Protocol{chat, resp} {
		b.Run(string(p), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if projection.MeasureContext(last, items, p).Used == nil {
					b.Fatal("no size")
				}
			}
		})
	}
}

// BenchmarkCompactionDecision10k measures the compaction decision made
// before every request of a session of 10,000 items whose ledger holds
// 2,500 turn requests, over the SQLite store: the size of the next request
// from the last turn request's input tokens and the estimate of what was
// appended since. "no summary": the session never compacted (the ledger is
// searched for a summary request); "summarised": one summary request long
// ago.
func BenchmarkCompactionDecision10k(b *testing.B) {
	for _, summarised := range []bool{false, true} {
		name := "no summary"
		if summarised {
			name = "summarised"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			store, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "albedo.sqlite"))
			if err != nil {
				b.Fatal(err)
			}
			defer store.Close()
			cfg := fakes.NewConfig("fixture", albedo.ProviderConfig{Name: "fixture", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Protocol: chat, ContextWindow: 1 << 20})
			svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: fakes.NewProvider(nil), Kernel: fakes.NewKernel(), Config: cfg})
			defer svc.Close(ctx)
			sess, err := svc.CreateSession(ctx, b.TempDir(), "")
			if err != nil {
				b.Fatal(err)
			}
			items := longTranscript(10_000)
			for i := range items {
				items[i].Seq = 0
			}
			done, err := store.Commit(ctx, albedo.Commit{SessionID: sess.ID, Items: items})
			if err != nil {
				b.Fatal(err)
			}
			items = done.Items
			in := int64(400_000)
			for i := range 2500 {
				kind := albedo.RequestTurn
				if summarised && i == 10 {
					kind = albedo.RequestSummary
				}
				row := albedo.RequestRow{SessionID: sess.ID, Kind: kind, Provider: "fixture", Model: "m", Protocol: chat,
					Outcome: albedo.OutcomeOK, Usage: albedo.Usage{InputTokens: &in}, Items: len(items) - 4, Bytes: 1_600_000}
				if _, err := store.AppendRequest(ctx, row); err != nil {
					b.Fatal(err)
				}
			}
			req := albedo.ModelRequest{Endpoint: albedo.Endpoint{Protocol: chat}}
			b.ReportAllocs()
			for b.Loop() {
				if n, err := engine.NextRequestTokens(ctx, svc, sess.ID, items, req); err != nil || n < in {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// BenchmarkProjectLongAnswer projects a transcript whose answer is 8 MiB
// long, in each protocol (Responses with the answer in its Raw, as the
// OpenAI adapter leaves it); B/op is about the projection's size when a
// long text is written into its message at once.
func BenchmarkProjectLongAnswer(b *testing.B) {
	text := strings.Repeat("a long answer, line after line\n", (8<<20)/31)
	encoded, _ := json.Marshal(text)
	raw := `{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":` +
		string(encoded) + `,"annotations":[],"logprobs":[]}]}`
	for _, protocol := range []albedo.Protocol{albedo.ProtocolChatCompletions, albedo.ProtocolResponses} {
		items := []albedo.Item{
			{Seq: 1, Kind: albedo.KindUser, Text: "a long answer please"},
			{Seq: 2, Kind: albedo.KindAssistant, Text: text, Protocol: protocol},
			{Seq: 3, Kind: albedo.KindUser, Text: "thanks"},
		}
		if protocol == albedo.ProtocolResponses {
			items[1].Raw = []byte(raw)
		}
		b.Run(string(protocol), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				projection.Project(items, protocol)
			}
		})
	}
}
