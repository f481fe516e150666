package localfs

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openFlags open a file for reading without blocking on a FIFO and
// without making a terminal the daemon's.
const openFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK

// openBeneath opens name beneath root with openat2, or with the walk
// where the kernel has no openat2 (before Linux 5.6, or refused by a
// seccomp filter).
func openBeneath(root, name string) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	how := unix.OpenHow{Flags: openFlags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	for range 8 {
		fd, err := unix.Openat2(dir, name, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), joined(root, name)), nil
		case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
			continue // a rename raced the lookup: try again
		case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
			return walkBeneath(dir, root, name)
		}
		return nil, openError(root, name, err)
	}
	return nil, refused(joined(root, name), "the path kept changing while it was looked up")
}

// openError says why openat2 or the walk refused a path.
func openError(root, name string, err error) error {
	path := joined(root, name)
	switch {
	case errors.Is(err, unix.EXDEV):
		return refused(path, "a link on its way leads out of %s", root)
	case errors.Is(err, unix.ELOOP):
		return refused(path, "it is reached through a link that may not be followed")
	}
	return &os.PathError{Op: "open", Path: path, Err: err}
}

// realPath is where an opened file lies, as the kernel names it.
func realPath(file *os.File, _ string) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(file.Fd())))
}
