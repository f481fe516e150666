package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/albedo-agent/albedo/adapters/gitshadow"
	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
)

// BenchmarkToolTurnSnapshots is BenchmarkToolTurn in a workspace of 2,000
// files with the workspace's snapshots off and on: what a snapshot after
// each cell (here one that changed nothing) adds to a tool round.
func BenchmarkToolTurnSnapshots(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) {
			ctx := context.Background()
			workspace := b.TempDir()
			for i := range 2000 {
				dir := filepath.Join(workspace, fmt.Sprintf("pkg%02d", i/50))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(fmt.Sprintf("package p // %d\n", i)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			opts := engine.Options{Workspaces: localfs.Workspaces{}, Store: openStore(b), Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()}
			if on {
				shadows, err := gitshadow.New(filepath.Join(b.TempDir(), "checkpoints"), gitshadow.Limits{})
				if err != nil {
					b.Skip(err)
				}
				opts.Checkpoints = shadows
			}
			svc := engine.New(opts)
			defer svc.Close(ctx)
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
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N*toolRounds), "ms/tool-turn")
		})
	}
}
