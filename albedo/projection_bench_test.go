package albedo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
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
	comp := &albedo.Compaction{Summary: strings.Repeat("what happened so far. ", 200), Users: users / 2, Fingerprint: albedo.Fingerprint(base, users/2)}
	for _, ep := range []albedo.Endpoint{{Protocol: chat}, {Protocol: resp}} {
		b.Run(string(ep.Protocol)+"/fresh", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(albedo.ProjectCompacted(base, *comp, ep)) == 0 {
					b.Fatal("empty input")
				}
			}
		})
		b.Run(string(ep.Protocol)+"/kept", func(b *testing.B) {
			items := append([]albedo.Item(nil), base...)
			var proj albedo.IncrementalProjection
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
				if albedo.MeasureContext(last, items, p).Used == nil {
					b.Fatal("no size")
				}
			}
		})
	}
}
