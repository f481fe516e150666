//go:build unix

package localfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// walkBeneath opens name beneath the folder open as dir one component at
// a time, following no link at all: stricter than openat2's
// RESOLVE_BENEATH, which follows links that stay beneath.
func walkBeneath(dir int, root, name string) (*os.File, error) {
	parts := strings.Split(filepath.ToSlash(name), "/")
	at, owned := dir, false
	defer func() {
		if owned {
			unix.Close(at)
		}
	}()
	for i, part := range parts {
		if part == "" || part == "." || part == ".." {
			return nil, openError(root, name, unix.EXDEV)
		}
		flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		last := i == len(parts)-1
		if last {
			flags = openFlags | unix.O_NOFOLLOW
		}
		fd, err := unix.Openat(at, part, flags, 0)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || (!last && errors.Is(err, unix.ENOTDIR) && isLink(at, part)) {
				err = unix.ELOOP
			}
			return nil, openError(root, name, err)
		}
		if owned {
			unix.Close(at)
		}
		if last {
			owned = false
			return os.NewFile(uintptr(fd), joined(root, name)), nil
		}
		at, owned = fd, true
	}
	return nil, openError(root, name, unix.ENOENT)
}

// isLink reports whether name in the folder open as dir is a link.
func isLink(dir int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// links is the number of hard links of a file.
func links(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// joined is the path of name beneath root, for messages.
func joined(root, name string) string { return filepath.Join(root, name) }
