package landlock

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

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
