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

// scavengeEvery is how often the daemon checks for freed memory it still
// holds; idleHeapLimit is how much of it it keeps.
const (
	scavengeEvery = 20 * time.Second
	idleHeapLimit = 16 << 20
)

// scavenge hands freed heap memory back to the operating system every
// scavengeEvery, when more than idleHeapLimit of it is held, so that what
// a turn or a read used is returned within a minute. It returns when ctx
// ends.
func scavenge(ctx context.Context) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	tick := time.NewTicker(scavengeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > idleHeapLimit {
				debug.FreeOSMemory()
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
