package localfs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// ReadDirBeneath lists, sorted by name, the folder name beneath root ("." for root
// itself), reached as OpenBeneath reaches a file: through no link leading
// out of root, its real path under none of hidden (nor is root's). A
// listing names what a folder holds, so a folder the sandbox hides is no
// more listed for the model than its files are read. A name that is not
// a folder returns an error wrapping syscall.ENOTDIR.
func ReadDirBeneath(root, name string, hidden []string) ([]os.DirEntry, error) {
	var (
		dir *os.File
		err error
	)
	if filepath.Clean(name) == "." {
		dir, err = os.Open(root)
	} else {
		if filepath.IsAbs(name) || !filepath.IsLocal(name) {
			return nil, refused(filepath.Join(root, name), "the name must be a path inside %s", root)
		}
		dir, err = openBeneath(root, filepath.Clean(name))
	}
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	info, err := dir.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir.Name(), err)
	}
	if !info.IsDir() {
		return nil, &os.PathError{Op: "list", Path: dir.Name(), Err: syscall.ENOTDIR}
	}
	real, err := realPath(dir, filepath.Join(root, name))
	if err != nil {
		return nil, refused(dir.Name(), "where it lies cannot be told: %v", err)
	}
	if h := under(real, hidden); h != "" {
		return nil, refused(dir.Name(), "it lies under the hidden path %s", h)
	}
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir.Name(), err)
	}
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}
