// Package localfs is albedo's reach into the local file system on the
// model's behalf: it answers the domain's questions about workspace
// folders (albedo.Workspaces) and opens the files the daemon reads for the
// model no further than the model's sandbox reaches (OpenBeneath).
package localfs

import (
	"os"
	"path/filepath"

	"github.com/albedo-agent/albedo/albedo"
)

// Workspaces is albedo.Workspaces on the local disk. The zero value
// refuses / and the user's home as too broad.
type Workspaces struct {
	// Home is albedo's home: a workspace may be neither it, nor inside
	// it, nor a folder holding it. "" for none.
	Home string
	// UserHome is the user's home, refused as a workspace; $HOME when "".
	UserHome string
	// AllowAny accepts every folder, the broad ones too.
	AllowAny bool
}

// Folder says what path names on disk: a folder, something else, nothing
// that can be read (FolderMissing), or a folder too broad to work in
// (FolderTooBroad; compared with links resolved).
func (w Workspaces) Folder(path string) albedo.Folder {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return albedo.FolderMissing
	case !info.IsDir():
		return albedo.FolderNotDir
	case !w.AllowAny && w.tooBroad(resolved(path)):
		return albedo.FolderTooBroad
	}
	return albedo.FolderDir
}

// tooBroad reports whether the resolved folder path is /, the user's
// home, or albedo's home, inside it or above it.
func (w Workspaces) tooBroad(path string) bool {
	if path == string(filepath.Separator) {
		return true
	}
	user := w.UserHome
	if user == "" {
		user, _ = os.UserHomeDir()
	}
	if user != "" && path == resolved(user) {
		return true
	}
	if w.Home != "" {
		home := resolved(w.Home)
		return within(path, home) || within(home, path)
	}
	return false
}
