package localfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrRefused is what a *RefusedError is: errors.Is(err, ErrRefused) holds
// for every refusal of OpenBeneath.
var ErrRefused = errors.New("refused")

// ErrFolder is wrapped by the error of OpenBeneath for a folder: no file
// to read, though no danger either.
var ErrFolder = errors.New("is a folder")

// RefusedError is OpenBeneath's refusal of a file that exists but may not
// be opened for the model: a link leading out of its root, something other
// than a regular file, a file with other hard links, or one under a hidden
// path.
type RefusedError struct {
	// Path is the path asked for.
	Path string
	// Reason says why, as a clause ("it has 2 hard links, ...").
	Reason string
}

// Error says what was refused and why.
func (e *RefusedError) Error() string { return "opening " + e.Path + ": refused: " + e.Reason }

// Is makes the error ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// refused returns a *RefusedError.
func refused(path, format string, args ...any) error {
	return &RefusedError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// ErrTooLarge is wrapped by the error of ReadBeneath for a file over its
// limit.
var ErrTooLarge = errors.New("too large")

// OpenBeneath opens for reading the file name, a relative path, beneath
// the folder root, as the daemon must open any file it reads on the
// model's behalf: with no more reach than the model's own code in its
// sandbox, though the daemon itself runs unconfined.
//
// A file that does not exist returns an error wrapping fs.ErrNotExist.
// One that exists is refused (ErrRefused) unless all of this holds:
//
//   - no link on the way leads out of root (links within it are
//     followed): openat2 with RESOLVE_BENEATH and RESOLVE_NO_MAGICLINKS,
//     or, where the kernel lacks openat2, a walk one component at a time
//     that follows no link at all;
//   - it is a regular file (a FIFO would block the daemon, a device
//     would read what the model may not);
//   - it has no other hard link. A hard link is a second name for the
//     same file that no path check can see through; the sandbox keeps a
//     kernel from making one to a file it cannot read (Landlock refuses
//     to link a file across folders unless the kernel has the same rights
//     on both), but a link made before, outside the sandbox or while it
//     was off, would still name a secret. Instruction files, images and
//     configuration are never hard-linked by the tools that write them,
//     so the rule costs nothing a user does;
//   - its real path lies under none of hidden (albedo's home and the
//     sandbox's hidden paths), nor does root itself.
//
// name must be relative and may not contain "..".
func OpenBeneath(root, name string, hidden []string) (*os.File, error) {
	if name == "" || filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return nil, refused(filepath.Join(root, name), "the name must be a path inside %s", root)
	}
	file, err := openBeneath(root, filepath.Clean(name))
	if err != nil {
		return nil, err
	}
	if err := checkOpened(file, root, name, hidden); err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

// ReadBeneath reads the file OpenBeneath opens, refusing one over limit
// bytes with an error wrapping ErrTooLarge.
func ReadBeneath(root, name string, hidden []string, limit int64) ([]byte, error) {
	file, err := OpenBeneath(root, name, hidden)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file.Name(), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("reading %s: %w: it is over %d bytes", file.Name(), ErrTooLarge, limit)
	}
	return data, nil
}

// checkOpened refuses an opened file that is not a regular file of one
// link lying outside every hidden path.
func checkOpened(file *os.File, root, name string, hidden []string) error {
	info, err := file.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", file.Name(), err)
	}
	if info.IsDir() {
		return fmt.Errorf("opening %s: %w", file.Name(), ErrFolder)
	}
	if !info.Mode().IsRegular() {
		return refused(file.Name(), "it is not a regular file (%s)", info.Mode().Type())
	}
	if n := links(info); n > 1 {
		return refused(file.Name(), "it has %d hard links, and another name of it may be a hidden file", n)
	}
	real, err := realPath(file, filepath.Join(root, name))
	if err != nil {
		return refused(file.Name(), "where it lies cannot be told: %v", err)
	}
	if h := under(real, hidden); h != "" {
		return refused(file.Name(), "it lies under the hidden path %s", h)
	}
	return nil
}

// under returns the first of hidden (each resolved through its links when
// it exists) that holds path or is it, "" when none does.
func under(path string, hidden []string) string {
	for _, h := range hidden {
		if h == "" || !filepath.IsAbs(h) {
			continue
		}
		for _, form := range []string{filepath.Clean(h), resolved(h)} {
			if within(path, form) {
				return h
			}
		}
	}
	return ""
}

// within reports whether path is dir or lies beneath it.
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// resolved is path with its links resolved, or path itself when that
// fails (it does not exist).
func resolved(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return filepath.Clean(path)
}
