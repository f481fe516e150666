package landlock

import (
	"fmt"
	"path/filepath"
)

// heldHelper is the sandbox helper as the daemon took it at start, so that
// what a kernel may write cannot change the program every later kernel
// starts through (a cell replacing it with one that skips the
// confinement, then crashing its kernel).
type heldHelper struct {
	// argv begins a kernel's command line: a path that names the held
	// copy, then the helper's own first arguments.
	argv []string
	// exposed is the resolved path of a helper that could not be held:
	// started by that path, it is refused wherever a kernel may write it.
	// Empty when held.
	exposed string
	// release gives the held copy back; nil when there is none.
	release func() error
}

// holdHelper holds the helper command argv (see holdProgram): with
// nothing to hold, it is used as it is and refused where a kernel may
// write it.
func holdHelper(argv []string) heldHelper {
	if len(argv) == 0 {
		return heldHelper{}
	}
	if path, release, err := holdProgram(argv[0]); err == nil {
		return heldHelper{argv: append([]string{path}, argv[1:]...), release: release}
	}
	abs, err := filepath.Abs(argv[0])
	if err != nil {
		abs = argv[0]
	}
	return heldHelper{argv: argv, exposed: realPath(abs)}
}

// check refuses a helper that a kernel given the writable folders could
// replace or rewrite.
func (h heldHelper) check(writable []string) error {
	if h.exposed == "" {
		return nil
	}
	for _, w := range writable {
		if within(h.exposed, w) {
			return fmt.Errorf("the sandbox helper %s lies in %s, which a kernel may write, and this machine gave no way to hold a copy of it at the daemon's start; move albedo out of the workspace", h.exposed, w)
		}
	}
	return nil
}
