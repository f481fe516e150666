package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/sqlstore"

	"github.com/albedo-agent/albedo/albedo"
)

// benchItems returns n items shaped like a real transcript: a user message,
// then rounds of reasoning, a python call and its output, then the answer.
func benchItems(n int) []albedo.Item {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 5)
	items := make([]albedo.Item, n)
	for i := range items {
		ts := int64(1_700_000_000_000 + i)
		call := fmt.Sprintf("call-%d", i)
		switch i % 5 {
		case 0:
			items[i] = albedo.Item{Kind: albedo.KindUser, Text: text, Timestamp: ts}
		case 1:
			items[i] = albedo.Item{
				Kind: albedo.KindReasoning, Text: text, Protocol: albedo.ProtocolResponses, Timestamp: ts,
				Raw: json.RawMessage(`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"` + text + `"}]}`),
			}
		case 2:
			items[i] = albedo.Item{
				Kind: albedo.KindToolCall, CallID: call, ToolName: "python", Protocol: albedo.ProtocolResponses,
				Arguments: `{"code":"print(open('example.txt').read())"}`, Timestamp: ts,
				Raw: json.RawMessage(`{"type":"function_call","call_id":"` + call + `","name":"python","arguments":"{}"}`),
			}
		case 3:
			items[i] = albedo.Item{
				Kind: albedo.KindToolOutput, CallID: call, Text: text, Timestamp: ts,
				Result: &albedo.CellResult{
					Status: albedo.CellOK, Output: text,
					Trace: albedo.Trace{Activities: []albedo.Activity{{Kind: "read", Target: "/w/example.txt"}}},
				},
			}
		case 4:
			items[i] = albedo.Item{
				Kind: albedo.KindAssistant, Text: text, Protocol: albedo.ProtocolResponses, Timestamp: ts,
				Raw: json.RawMessage(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + text + `"}]}`),
			}
		}
	}
	return items
}

func BenchmarkSessions1000(b *testing.B) {
	s := openStore(b, testPath(b))
	ctx := context.Background()
	for i := range 1000 {
		sess := newSession(fmt.Sprintf("session-%04d", i))
		sess.Title = "write and inspect a file"
		sess.UpdatedAt = time.UnixMilli(1_700_000_000_000 + int64(i))
		mustCommit(b, s, albedo.Commit{Session: &sess})
	}
	b.ResetTimer()
	for b.Loop() {
		sessions, err := s.Sessions(ctx)
		if err != nil || len(sessions) != 1000 {
			b.Fatalf("Sessions: %d, %v", len(sessions), err)
		}
	}
}

// BenchmarkSession1000 reads one session among 1,000, as a turn does
// before each model request.
func BenchmarkSession1000(b *testing.B) {
	s := openStore(b, testPath(b))
	ctx := context.Background()
	ids := createSessions(b, s, "session-", 1000)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Session(ctx, ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkItems10000(b *testing.B) {
	s := openStore(b, testPath(b))
	ctx := context.Background()
	createSessions(b, s, "s", 2)
	items := benchItems(10_000)
	for i := 0; i < len(items); i += 500 {
		// Another session's items interleave, as in a busy daemon.
		mustCommit(b, s, albedo.Commit{SessionID: "s0", Items: items[i : i+500]})
		mustCommit(b, s, albedo.Commit{SessionID: "s1", Items: items[i : i+100]})
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := s.Items(ctx, "s0", 0, 0)
		if err != nil || len(got) != 10_000 {
			b.Fatalf("Items: %d, %v", len(got), err)
		}
	}
}

func BenchmarkCommitItem(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			s := openStore(b, testPath(b))
			ctx := context.Background()
			createSessions(b, s, "s", 1)
			sess := newSession("s0")
			items := benchItems(n)
			b.ResetTimer()
			for b.Loop() {
				// A turn's step: its items land with the session's update.
				sess.Revision++
				if _, err := s.Commit(ctx, albedo.Commit{Session: &sess, Items: items}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// longCall returns a python call whose arguments are about size bytes,
// with its native JSON holding them again when raw is set (as a Responses
// function call does).
func longCall(size int, raw bool) albedo.Item {
	code := strings.Repeat("print('a line of a long python cell')\n", size/38+1)[:size]
	args, _ := json.Marshal(map[string]string{"code": code})
	it := albedo.Item{Kind: albedo.KindToolCall, CallID: "call-long", ToolName: "python", Protocol: albedo.ProtocolResponses,
		Arguments: string(args), Timestamp: 1_700_000_000_000, Raw: json.RawMessage(`{"type":"function_call"}`)}
	if raw {
		it.Raw, _ = json.Marshal(map[string]string{"type": "function_call", "call_id": it.CallID, "name": "python", "arguments": it.Arguments})
	}
	return it
}

// peakRSS measures the growth of the process's resident memory over op:
// the high-water mark after op less the resident size before it, in MB.
// It reads /proc/self (Linux); elsewhere it reports 0.
func peakRSS(b *testing.B, op func()) float64 {
	b.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	// Writing 5 to clear_refs resets the high-water mark to the current size.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		op()
		return 0
	}
	before := procStatus(b, "VmRSS")
	op()
	return float64(procStatus(b, "VmHWM")-before) / 1e6
}

// procStatus returns a size field of /proc/self/status in bytes.
func procStatus(b *testing.B, name string) int64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, name+":"); ok {
			var kb int64
			if _, err := fmt.Sscan(rest, &kb); err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no %s in /proc/self/status", name)
	return 0
}

// BenchmarkLongToolCall appends and reads one python call with 50 MiB of
// arguments (and, for "arguments and raw", its native JSON holding them
// again). Besides the Go allocations it reports peak-MB: how far the
// process's resident memory rose above where it was during one operation,
// the most of any iteration: SQLite's own memory (outside the Go heap)
// counts there.
func BenchmarkLongToolCall(b *testing.B) {
	const size = 50 << 20
	for _, shape := range []struct {
		name string
		raw  bool
	}{{"arguments", false}, {"arguments and raw", true}} {
		call := longCall(size, shape.raw)
		b.Run(shape.name+"/append", func(b *testing.B) {
			s := openStore(b, testPath(b))
			createSessions(b, s, "s", 1)
			var peak float64
			b.ReportAllocs()
			for b.Loop() {
				peak = max(peak, peakRSS(b, func() { mustCommit(b, s, albedo.Commit{SessionID: "s0", Items: []albedo.Item{call}}) }))
			}
			b.ReportMetric(peak, "peak-MB")
		})
		for _, read := range []struct {
			name string
			q    albedo.ItemQuery
		}{{"read", albedo.ItemQuery{Images: true}}, {"read for display", albedo.ItemQuery{Display: true}}} {
			b.Run(shape.name+"/"+read.name, func(b *testing.B) {
				s := openStore(b, testPath(b))
				createSessions(b, s, "s", 1)
				mustCommit(b, s, albedo.Commit{SessionID: "s0", Items: []albedo.Item{textItem("write it"), call}})
				ctx := context.Background()
				var peak float64
				b.ReportAllocs()
				for b.Loop() {
					peak = max(peak, peakRSS(b, func() {
						items, err := s.ItemPage(ctx, "s0", read.q)
						if err != nil || len(items) != 2 || len(items[1].Arguments) != len(call.Arguments) {
							b.Fatalf("ItemPage: %d items, %v", len(items), err)
						}
					}))
				}
				b.ReportMetric(peak, "peak-MB")
			})
		}
	}
}

// BenchmarkLastRequest finds a session's newest ledger row of a kind
// among 20,000 rows of that session and 20 of each of 999 others: the
// newest of all (a turn) and one written before every other (the
// summary), as the compaction decision asks after a restart.
func BenchmarkLastRequest(b *testing.B) {
	path := testPath(b)
	s := openStore(b, path)
	ids := createSessions(b, s, "s", 1000)
	db := rawDB(b, path)
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i, id := range ids {
		n := 20
		if i == 0 {
			n = 20_000
		}
		for j := range n {
			kind := albedo.RequestTurn
			if j == 0 {
				kind = albedo.RequestSummary
			}
			if _, err := tx.Exec("INSERT INTO requests (session_id, kind, outcome) VALUES (?, ?, 'ok')", id, string(kind)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, kind := range []albedo.RequestKind{albedo.RequestTurn, albedo.RequestSummary} {
		b.Run(string(kind), func(b *testing.B) {
			for b.Loop() {
				if row, ok, err := s.LastRequest(ctx, ids[0], kind); err != nil || !ok || row.Kind != kind {
					b.Fatalf("LastRequest(%s) = %+v, %v, %v", kind, row, ok, err)
				}
			}
		})
	}
}

// BenchmarkRequestTotals sums the ledger of 1,000 sessions, 40,000 rows
// in all, as listing the sessions does.
func BenchmarkRequestTotals(b *testing.B) {
	path := testPath(b)
	s := openStore(b, path)
	ids := createSessions(b, s, "s", 1000)
	db := rawDB(b, path)
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i, id := range ids {
		for range 40 {
			if _, err := tx.Exec("INSERT INTO requests (session_id, kind, outcome, input_tokens, output_tokens) VALUES (?, 'turn', 'ok', ?, 7)", id, i); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// The same database without the sums kept: they are read each time.
	uncached := sqlstore.New(s.write, s.read, sqlstore.Dialect{Unavailable: unavailable, ForeignKey: foreignKeyViolation})
	for _, cached := range []bool{true, false} {
		b.Run(fmt.Sprintf("cached=%v", cached), func(b *testing.B) {
			store := s.Store
			if !cached {
				store = uncached
			}
			for b.Loop() {
				if totals, err := store.RequestTotals(ctx); err != nil || len(totals) != 1000 {
					b.Fatalf("RequestTotals = %d, %v", len(totals), err)
				}
			}
		})
	}
}
