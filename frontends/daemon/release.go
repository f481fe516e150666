package daemon

import "runtime/debug"

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
