package daemon

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// largeRead is the size of an answer past which the memory it used is
// handed back to the operating system at once, rather than left to the
// runtime's slow background return.
const largeRead = 16 << 20

// releaseAfterLargeRead returns freed memory to the operating system after
// an answer of size bytes, when that was large.
func releaseAfterLargeRead(size int) {
	if size >= largeRead {
		debug.FreeOSMemory()
	}
}

// scavengeEvery is how often the daemon looks at what it allocated;
// churnLimit is how much allocation since the last look makes it collect
// and hand freed memory back.
const (
	scavengeEvery = 20 * time.Second
	churnLimit    = 16 << 20
)

// scavenge collects and hands freed memory back to the operating system
// every scavengeEvery when more than churnLimit was allocated since the
// last time, so that what a turn or a read used is returned within a
// minute. (An idle daemon allocates nothing, so the runtime would neither
// collect its garbage nor return it for minutes.) It returns when ctx
// ends.
func scavenge(ctx context.Context) {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	var seen uint64
	tick := time.NewTicker(scavengeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				continue
			}
			if allocs := sample[0].Value.Uint64(); allocs-seen > churnLimit {
				debug.FreeOSMemory()
				metrics.Read(sample)
				seen = sample[0].Value.Uint64()
			}
		}
	}
}

// memoryLimit is the soft limit of the daemon's heap unless GOMEMLIMIT
// says otherwise: past it the collector runs more often rather than let
// garbage double the heap, so that a long session's turn does not leave
// the daemon twice the size it needs.
const memoryLimit = 128 << 20

// limitMemory sets the daemon's soft memory limit, unless the GOMEMLIMIT
// environment variable chose one.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
