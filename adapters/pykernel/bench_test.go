package pykernel

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// BenchmarkWarmCell measures the round trip of a trivial cell in a running
// kernel; ms/median is the target figure.
func BenchmarkWarmCell(b *testing.B) {
	k := newKernels(b, Options{})
	workspace := b.TempDir()
	ctx := context.Background()
	cell := albedo.Cell{SessionID: "warm", Workspace: workspace, Code: "1"}
	runCell(b, k, ctx, cell)
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		began := time.Now()
		if res := runCell(b, k, ctx, cell); res.Value != "1" {
			b.Fatalf("result %+v", res)
		}
		took = append(took, time.Since(began))
	}
	b.StopTimer()
	b.ReportMetric(milliseconds(median(took)), "ms/median")
}

// BenchmarkColdStart measures a fresh kernel's start up to its first
// result, and the resident memory of the idle kernel after that cell.
func BenchmarkColdStart(b *testing.B) {
	k := newKernels(b, Options{})
	workspace := b.TempDir()
	ctx := context.Background()
	took := make([]time.Duration, 0, b.N)
	rss := make([]float64, 0, b.N) // MB
	b.ResetTimer()
	for i := range b.N {
		session := "cold-" + strconv.Itoa(i)
		began := time.Now()
		if res := runCell(b, k, ctx, albedo.Cell{SessionID: session, Workspace: workspace, Code: "1"}); res.Value != "1" {
			b.Fatalf("result %+v", res)
		}
		took = append(took, time.Since(began))
		b.StopTimer()
		if kb, err := residentKB(pidOf(k, session)); err == nil {
			rss = append(rss, float64(kb)/1024)
		}
		if err := k.Stop(ctx, session); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(milliseconds(median(took)), "ms/median")
	if len(rss) > 0 {
		b.ReportMetric(median(rss), "MB-idle-rss")
	}
}

// BenchmarkInterpreterStart is BenchmarkColdStart's baseline: the same
// interpreter, in the same environment, running "pass".
func BenchmarkInterpreterStart(b *testing.B) {
	o := testOptions(b, Options{}).withDefaults()
	env := kernelEnv(o.Env)
	took := make([]time.Duration, 0, b.N)
	for range b.N {
		cmd := exec.Command(o.Python, "-c", "pass")
		cmd.Env = env
		began := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(began))
	}
	b.ReportMetric(milliseconds(median(took)), "ms/median")
}

// median returns the median of values, sorting them.
func median[T time.Duration | float64](values []T) T {
	if len(values) == 0 {
		return 0
	}
	slices.Sort(values)
	return values[len(values)/2]
}

// milliseconds returns d in milliseconds.
func milliseconds(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}

// residentKB reads a process's resident set size from /proc.
func residentKB(pid int) (int, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if value, ok := strings.CutPrefix(lines.Text(), "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		}
	}
	return 0, os.ErrNotExist
}

func TestIdleKernelMemory(t *testing.T) {
	k := newKernels(t, Options{})
	run(t, k, "rss", t.TempDir(), "1")
	kb, err := residentKB(pidOf(k, "rss"))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	t.Logf("idle kernel: VmRSS %.1f MB", float64(kb)/1024)
}
