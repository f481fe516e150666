package landlock_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/landlock"
	"github.com/albedo-agent/albedo/adapters/pykernel"
	"github.com/albedo-agent/albedo/albedo"
)

// BenchmarkKernelColdStart measures a fresh Python kernel's start up to its
// first result, unconfined and through the sandbox's helper (this test
// binary, or the albedo binary named by $LANDLOCK_BENCH_HELPER); the
// difference of their ms/median is what the sandbox adds.
func BenchmarkKernelColdStart(b *testing.B) {
	helper := []string{os.Args[0], landlock.HelperCommand}
	if exe := os.Getenv("LANDLOCK_BENCH_HELPER"); exe != "" {
		helper[0] = exe
	}
	root := landlock.Tree(b, "albedo/config.json", "user/.ssh/id", "ws/", "tmp/")
	sb := landlock.New(landlock.Options{Helper: helper, Home: root + "/albedo", UserHome: root + "/user", TempRoot: root + "/tmp"})
	confine := func(ctx context.Context, l pykernel.Launch) (pykernel.Launch, error) {
		c, err := sb.Confine(ctx, landlock.Start{SessionID: l.SessionID, Workspace: l.Workspace, Argv: l.Argv, Env: l.Env})
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
