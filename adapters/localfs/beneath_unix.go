//go:build unix && !linux

package localfs

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openFlags open a file for reading without blocking on a FIFO and
// without making a terminal the daemon's.
const openFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK

// openBeneath opens name beneath root with the walk: only Linux has
// openat2.
func openBeneath(root, name string) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	return walkBeneath(dir, root, name)
}

// openError says why the walk refused a path.
func openError(root, name string, err error) error {
	path := joined(root, name)
	switch err {
	case unix.EXDEV:
		return refused(path, "a link on its way leads out of %s", root)
	case unix.ELOOP:
		return refused(path, "it is reached through a link that may not be followed")
	}
	return &os.PathError{Op: "open", Path: path, Err: err}
}

// realPath is where an opened file lies: the walk followed no link, so
// its path with root's links resolved.
func realPath(_ *os.File, path string) (string, error) {
	return filepath.EvalSymlinks(path)
}
