package landlock

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/pykernel"
	"github.com/albedo-agent/albedo/albedo"
)

// BenchmarkKernelColdStart measures a fresh Python kernel's start up to its
// first result, unconfined and through the sandbox's helper (this test
// binary, or the albedo binary named by $LANDLOCK_BENCH_HELPER); the
// difference of their ms/median is what the sandbox adds.
func BenchmarkKernelColdStart(b *testing.B) {
	helper := []string{os.Args[0], HelperCommand}
	if exe := os.Getenv("LANDLOCK_BENCH_HELPER"); exe != "" {
		helper[0] = exe
	}
	root := tree(b, "albedo/config.json", "user/.ssh/id", "ws/", "tmp/")
	sb := New(Options{Helper: helper, Home: root + "/albedo", UserHome: root + "/user", TempRoot: root + "/tmp"})
	confine := func(ctx context.Context, l pykernel.Launch) (pykernel.Launch, error) {
		c, err := sb.Confine(ctx, Start{SessionID: l.SessionID, Workspace: l.Workspace, Argv: l.Argv, Env: l.Env})
		l.Argv, l.Env, l.Release = c.Argv, c.Env, c.Release
		return l, err
	}
	for _, tt := range []struct {
		name    string
		confine func(context.Context, pykernel.Launch) (pykernel.Launch, error)
	}{{"unconfined", nil}, {"sandboxed", confine}} {
		b.Run(tt.name, func(b *testing.B) {
			k := pykernel.New(pykernel.Options{Confine: tt.confine})
			defer k.Close(context.Background())
			ctx := context.Background()
			took := make([]time.Duration, 0, b.N)
			for i := range b.N {
				session := "cold-" + strconv.Itoa(i)
				began := time.Now()
				res, err := k.Run(ctx, albedo.Cell{SessionID: session, Workspace: root + "/ws", Code: "1"})
				if err != nil || res.Value != "1" {
					b.Fatalf("cell: %+v, %v", res, err)
				}
				took = append(took, time.Since(began))
				b.StopTimer()
				if err := k.Stop(ctx, session); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms/median")
		})
	}
}

// BenchmarkHelperStart measures what the helper adds to a program's start:
// /bin/true run directly, and through the helper confining it as a
// workspace-write kernel would be.
func BenchmarkHelperStart(b *testing.B) {
	helper := os.Args[0]
	if exe := os.Getenv("LANDLOCK_BENCH_HELPER"); exe != "" {
		helper = exe
	}
	root := tree(b, "albedo/config.json", "user/.ssh/id", "ws/", "tmp/")
	spec := Spec{ABI: KernelABI(), Network: true, Writable: []string{root + "/ws", root + "/tmp"}, Hidden: []string{root + "/albedo", root + "/user/.ssh"}}
	for _, tt := range []struct {
		name string
		argv []string
	}{{"direct", []string{"/bin/true"}}, {"helper", []string{helper, HelperCommand, spec.encode(), "--", "/bin/true"}}} {
		b.Run(tt.name, func(b *testing.B) {
			took := make([]time.Duration, 0, b.N)
			for range b.N {
				began := time.Now()
				if err := exec.Command(tt.argv[0], tt.argv[1:]...).Run(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(began))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms/median")
		})
	}
}
