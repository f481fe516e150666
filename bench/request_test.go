package bench

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/adapters/openai"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// swallow is a provider's transport that reads the whole request body, as
// a server would, and answers "ok" at once in the request's protocol.
type swallow struct{ read int64 }

func (s *swallow) RoundTrip(r *http.Request) (*http.Response, error) {
	n, err := io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	s.read = n
	answer := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	if strings.HasSuffix(r.URL.Path, "/responses") {
		answer = "data: {\"type\":\"response.completed\",\"response\":{\"output\":[{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"ok\"}]}]}}\n\n"
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(strings.NewReader(answer)),
		Request:    r,
	}, nil
}

// BenchmarkRequest10k measures what one model request of a long session
// costs the daemon: a turn of one request (the message stored, the request
// prepared from the 10,000-item transcript, encoded and read by the
// provider's side, the answer stored) over the real SQLite store and the
// real OpenAI adapter, whose transport answers at once. "whole" sends the
// whole transcript; "compacted" starts from a summary of its first half;
// "window" also configures a context window (large enough never to
// compact), so that the compaction decision runs before the request. The
// session grows by three items per turn.
func BenchmarkRequest10k(b *testing.B) {
	for _, p := range []albedo.Protocol{albedo.ProtocolChatCompletions, albedo.ProtocolResponses} {
		for _, mode := range []string{"whole", "compacted", "window"} {
			b.Run(string(p)+"/"+mode, func(b *testing.B) {
				benchmarkRequest(b, p, mode != "whole", mode == "window")
			})
		}
	}
}

func benchmarkRequest(b *testing.B, protocol albedo.Protocol, compacted, window bool) {
	ctx := context.Background()
	store := openStore(b)
	wire := &swallow{}
	provider := openai.New(openai.Options{HTTPClient: &http.Client{Transport: wire}, Logger: slog.New(slog.DiscardHandler)})
	pc := albedo.ProviderConfig{Name: "fixture", BaseURL: "http://model.invalid/v1", Model: "m", Protocol: protocol}
	if window {
		pc.ContextWindow = 1 << 30
	}
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: provider, Kernel: instantKernel{},
		Config: fakes.NewConfig("fixture", pc)})
	defer svc.Close(ctx)
	sess := storeSession(b, svc, store, 10_000)
	if compacted {
		items := transcript(10_000)
		users := 0
		for _, it := range items {
			if it.Kind == albedo.KindUser {
				users++
			}
		}
		c := albedo.Compaction{SessionID: sess.ID, Summary: strings.Repeat("what happened so far. ", 200), Users: users / 2,
			Fingerprint: compaction.Fingerprint(items, users/2), Strategy: albedo.CompactManual}
		if err := store.SaveCompaction(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	turn := func() {
		if _, err := svc.Send(ctx, sess.ID, albedo.Message{Text: "and now?"}); err != nil {
			b.Fatal(err)
		}
		if err := svc.Wait(ctx, sess.ID); err != nil {
			b.Fatal(err)
		}
	}
	turn() // the transcript is read from the store once
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime(b)
	for b.Loop() {
		turn()
	}
	reportCPU(b, start)
	b.ReportMetric(float64(wire.read), "body-bytes")
}
