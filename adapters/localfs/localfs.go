// Package localfs answers the domain's questions about workspace folders
// from the local file system (albedo.Workspaces).
package localfs

import (
	"os"

	"github.com/albedo-agent/albedo/albedo"
)

// Workspaces is albedo.Workspaces on the local disk. The zero value is
// ready to use.
type Workspaces struct{}

// Folder says what path names on disk: a folder, something else, or
// nothing that can be read (FolderMissing).
func (Workspaces) Folder(path string) albedo.Folder {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return albedo.FolderMissing
	case !info.IsDir():
		return albedo.FolderNotDir
	}
	return albedo.FolderDir
}
