//go:build linux

package landlock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// heldFloor is the lowest descriptor a held copy of the helper takes. A
// kernel's command line names the copy as /proc/self/fd/N, resolved in
// the child after it received its own descriptors (0 to 4 for a kernel:
// stdio and its two channels), which must not land on N.
const heldFloor = 100

// selfExe names, in any process, the program it runs; in a child the
// daemon forks, the daemon's own.
const selfExe = "/proc/self/exe"

// holdProgram returns a path that names the program at path as it is now,
// whatever becomes of path later, and a function that lets it go. The
// daemon's own binary is named by /proc/self/exe: a rename cannot change
// it, and Linux refuses to write to the file of a running program (held
// only when it does). Any other program is copied into a sealed memfd,
// which nothing can write again.
func holdProgram(path string) (string, func() error, error) {
	if own, err := isRunningProgram(path); err != nil {
		return "", nil, err
	} else if own {
		if !writesRefused() {
			return "", nil, errors.New("this kernel lets a running program's file be written")
		}
		return selfExe, func() error { return nil }, nil
	}
	fd, err := sealedCopy(path)
	if err != nil {
		return "", nil, err
	}
	held := "/proc/self/fd/" + strconv.Itoa(fd)
	if _, err := os.Stat(held); err != nil {
		unix.Close(fd)
		return "", nil, fmt.Errorf("naming the copy of %s: %w", path, err)
	}
	return held, func() error { return unix.Close(fd) }, nil
}

// isRunningProgram reports whether path is the file this process runs.
func isRunningProgram(path string) (bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	self, err := os.Stat(selfExe)
	if err != nil {
		return false, err
	}
	return os.SameFile(info, self), nil
}

// writesRefused reports whether the kernel refuses to open this process's
// program for writing (ETXTBSY). Nothing is written: the probe closes
// what it opened.
func writesRefused() bool {
	fd, err := unix.Open(selfExe, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	return errors.Is(err, unix.ETXTBSY)
}

// sealedCopy copies the program at path into a memfd sealed against any
// change, at a descriptor from heldFloor up, closed on exec.
func sealedCopy(path string) (int, error) {
	src, err := os.Open(path)
	if err != nil {
		return -1, err
	}
	defer src.Close()
	const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate("albedo-sandbox", flags|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) { // a kernel before 6.3, where every memfd may run
		fd, err = unix.MemfdCreate("albedo-sandbox", flags)
	}
	if err != nil {
		return -1, fmt.Errorf("making a memfd for %s: %w", path, err)
	}
	copied := os.NewFile(uintptr(fd), "albedo-sandbox")
	defer copied.Close()
	if _, err := io.Copy(copied, src); err != nil {
		return -1, fmt.Errorf("copying %s: %w", path, err)
	}
	const seals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(copied.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		return -1, fmt.Errorf("sealing the copy of %s: %w", path, err)
	}
	high, err := unix.FcntlInt(copied.Fd(), unix.F_DUPFD_CLOEXEC, heldFloor)
	if err != nil {
		return -1, fmt.Errorf("moving the copy of %s to a high descriptor: %w", path, err)
	}
	return high, nil
}
