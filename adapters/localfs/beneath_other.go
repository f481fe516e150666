//go:build !unix

package localfs

import (
	"os"
	"path/filepath"
)

// openBeneath refuses every file: opening one safely for the model needs
// a Unix system.
func openBeneath(root, name string) (*os.File, error) {
	return nil, refused(filepath.Join(root, name), "this system cannot open files for the model safely")
}

// realPath is never reached.
func realPath(_ *os.File, path string) (string, error) { return path, nil }

// links is never reached.
func links(os.FileInfo) uint64 { return 1 }
