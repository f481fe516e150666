package engine

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/albedo-agent/albedo/albedo"
)

// MoveWorkspace binds an idle session to a new workspace folder, for
// example after the old one was renamed. History is kept; the kernel starts
// afresh in the new folder at the next cell.
func (s *Service) MoveWorkspace(ctx context.Context, id, path string) (albedo.Session, error) {
	return withRow(ctx, s, id, func(st *sessionState) (albedo.Session, error) {
		sess, err := s.store.Session(ctx, id)
		if err != nil {
			return albedo.Session{}, err
		}
		if st.running() != nil {
			return albedo.Session{}, albedo.Errorf(albedo.EBusy, "session %s is running a turn: interrupt it or wait before moving its workspace", id)
		}
		if err := s.checkMove(sess.Workspace, path); err != nil {
			return albedo.Session{}, err
		}
		sess, err = s.updateLocked(ctx, id, func(x *albedo.Session) error {
			x.Workspace = filepath.Clean(path)
			return nil
		})
		if err != nil {
			return albedo.Session{}, err
		}
		if err := s.kernel.Stop(ctx, id); err != nil {
			s.log.Warn("stop kernel after workspace move", "session", id, "err", err)
		}
		st.mu.Lock()
		st.kernelLive, st.kernelWarm = false, false
		st.mu.Unlock()
		return sess, nil
	})
}

// checkMove validates a new workspace against the old one.
func (s *Service) checkMove(old, path string) error {
	reject := func(format string, args ...any) error {
		return &albedo.Error{Code: albedo.EWorkspaceRejected, Message: fmt.Sprintf(format, args...), Details: map[string]any{"workspace": old}}
	}
	switch {
	case path == "":
		return reject("workspace is required")
	case !filepath.IsAbs(path):
		return reject("workspace %q is not an absolute path", path)
	case filepath.Clean(path) == filepath.Clean(old):
		return reject("workspace %q is already the session's workspace", path)
	}
	switch s.workspaces.Folder(path) {
	case albedo.FolderMissing:
		return reject("workspace %q does not exist", path)
	case albedo.FolderNotDir:
		return reject("workspace %q is not a folder", path)
	case albedo.FolderTooBroad:
		return tooBroad(path)
	}
	return nil
}
