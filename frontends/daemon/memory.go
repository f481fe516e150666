package daemon

import (
	"os"
	"runtime/debug"
)

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
