package bench

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/adapters/pykernel"
	"github.com/albedo-agent/albedo/adapters/spool"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// needPython skips a benchmark on a machine without python3.
func needPython(b *testing.B) {
	b.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 is needed")
	}
}

// newKernels returns real kernels closed when the benchmark ends.
func newKernels(b *testing.B) *pykernel.Kernels {
	b.Helper()
	needPython(b)
	k := pykernel.New(pykernel.Options{})
	b.Cleanup(func() { _ = k.Close(context.Background()) })
	return k
}

// BenchmarkWarmPrintCell is the baseline of BenchmarkWarmPrintCellSpooled:
// a warm kernel runs print(1), with no live output and no spool.
func BenchmarkWarmPrintCell(b *testing.B) {
	k := newKernels(b)
	cell := albedo.Cell{SessionID: "warm", Workspace: b.TempDir(), Code: "print(1)"}
	warmCells(b, k, cell, nil)
}

// BenchmarkWarmPrintCellSpooled runs the same cell as the turn engine
// does: its output live through Cell.Output into the file spool, which is
// removed once the result is in; the difference from BenchmarkWarmPrintCell
// is what live output and spooling add per cell.
func BenchmarkWarmPrintCellSpooled(b *testing.B) {
	k := newKernels(b)
	sp := spool.New(b.TempDir(), 0)
	ctx := context.Background()
	cell := albedo.Cell{SessionID: "warm", Workspace: b.TempDir(), Code: "print(1)"}
	warmCells(b, k, cell, func(c *albedo.Cell, n int) func() {
		c.Call = int64(n)
		c.Output = func(text string) { _ = sp.Append(ctx, c.SessionID, c.Call, text) }
		return func() { _ = sp.Remove(ctx, c.SessionID, c.Call) }
	})
}

// warmCells runs cell b.N times in a warm kernel and reports the median;
// wire, when set, prepares each run and returns what ends it.
func warmCells(b *testing.B, k *pykernel.Kernels, cell albedo.Cell, wire func(c *albedo.Cell, n int) func()) {
	ctx := context.Background()
	if _, err := k.Run(ctx, cell); err != nil {
		b.Fatal(err)
	}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		c := cell
		began := time.Now()
		var done func()
		if wire != nil {
			done = wire(&c, i+1)
		}
		res, err := k.Run(ctx, c)
		if err != nil || res.Output != "1\n" {
			b.Fatalf("result %+v, %v", res, err)
		}
		if done != nil {
			done()
		}
		took = append(took, time.Since(began))
	}
	b.StopTimer()
	b.ReportMetric(float64(medianOf(took))/float64(time.Millisecond), "ms/median")
}

func medianOf(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// liveBytes is what the throughput benchmark's cell prints: the most a
// cell shows live.
const liveBytes = 8 << 20

// BenchmarkLiveOutput measures live output through the whole engine: a
// turn whose cell prints 8 MiB in lines of 100 bytes, a real kernel, the
// file spool, and a subscriber that reads every output event. MB/s is the
// figure: bytes the subscriber received per second of the cell's run.
func BenchmarkLiveOutput(b *testing.B) {
	needPython(b)
	ctx := context.Background()
	code := fmt.Sprintf("import sys\nline = 'x' * 99 + '\\n'\nfor _ in range(%d):\n    sys.stdout.write(line)", liveBytes/100)
	provider := fakes.NewProvider(func(req albedo.ModelRequest) fakes.Reply {
		if strings.Contains(string(req.Input[len(req.Input)-1]), `"role":"tool"`) {
			return fakes.Text("done")
		}
		return fakes.Python(code)
	})
	k := pykernel.New(pykernel.Options{})
	defer k.Close(ctx)
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: openStore(b), Provider: provider, Kernel: k, Config: config(), Spool: spool.New(b.TempDir(), 0)})
	defer svc.Close(ctx)
	workspace := b.TempDir()
	var mbps []float64
	b.ResetTimer()
	for b.Loop() {
		sess, err := svc.CreateSession(ctx, workspace, "")
		if err != nil {
			b.Fatal(err)
		}
		sub, err := svc.Subscribe(ctx, sess.ID)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := svc.Send(ctx, sess.ID, albedo.Message{Text: "print"}); err != nil {
			b.Fatal(err)
		}
		received := 0
		var first, last time.Time
		for ev := range sub.Events {
			if ev.Type == wire.EventOutput {
				if first.IsZero() {
					first = time.Now()
				}
				received += len(ev.Text)
				last = time.Now()
			}
			if ev.Type == wire.EventTool {
				break
			}
		}
		sub.Close()
		if err := svc.Wait(ctx, sess.ID); err != nil {
			b.Fatal(err)
		}
		if received != liveBytes/100*100 {
			b.Fatalf("the subscriber received %d bytes, want %d", received, liveBytes/100*100)
		}
		mbps = append(mbps, float64(received)/(1<<20)/last.Sub(first).Seconds())
	}
	b.StopTimer()
	total := 0.0
	for _, v := range mbps {
		total += v
	}
	b.ReportMetric(total/float64(len(mbps)), "MB/s")
}
