package pykernel

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestPhases(t *testing.T) {
	o := testOptions(t, Options{}).withDefaults()
	var bare, kern, nosite []time.Duration
	for i := 0; i < 15; i++ {
		t0 := time.Now()
		exec.Command(o.Python, "-c", "pass").Run()
		bare = append(bare, time.Since(t0))
		t0 = time.Now()
		exec.Command(o.Python, "-S", "-c", "pass").Run()
		nosite = append(nosite, time.Since(t0))
		t0 = time.Now()
		p, err := start(context.Background(), &o, "x", t.TempDir())
		if err != nil { t.Fatal(err) }
		kern = append(kern, time.Since(t0))
		p.stop(context.Background())
	}
	slices.Sort(bare); slices.Sort(kern); slices.Sort(nosite)
	t.Logf("bare median %v min %v; -S median %v; kernel median %v min %v", bare[7], bare[0], nosite[7], kern[7], kern[0])
}
