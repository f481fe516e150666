package daemon

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Returning memory after a busy spell: an idle daemon allocates nothing,
// so the collector does not run and the runtime hands the pages a turn or
// a long read freed back to the system only slowly, leaving a daemon that
// has answered one long session tens of megabytes larger for minutes
// (docs/benchmarks.md, "Idle memory after a long turn").
const (
	// returnEvery is how often the daemon looks at what it allocated.
	returnEvery = 20 * time.Second
	// returnAfter is how many bytes allocated since the last look make it
	// collect and return freed memory.
	returnAfter = 16 << 20
)

// memoryReturner collects and returns freed memory to the system at a
// look when more than returnAfter bytes were allocated since the last
// return. Its fields are set once and read by run's goroutine only.
type memoryReturner struct {
	// allocated reports the bytes allocated since the process started.
	allocated func() uint64
	// release collects garbage and returns freed pages to the system.
	release func()
	// seen is allocated() at the last return.
	seen uint64
}

// newMemoryReturner returns a memoryReturner of the running process.
func newMemoryReturner() *memoryReturner {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	return &memoryReturner{
		allocated: func() uint64 {
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return 0
			}
			return sample[0].Value.Uint64()
		},
		release: debug.FreeOSMemory,
	}
}

// look returns freed memory when enough was allocated since the last
// return, and says whether it did.
func (m *memoryReturner) look() bool {
	if m.allocated()-m.seen <= returnAfter {
		return false
	}
	m.release()
	m.seen = m.allocated()
	return true
}

// run looks at each tick until ctx ends.
func (m *memoryReturner) run(ctx context.Context, ticks <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			m.look()
		}
	}
}
