package engine

import (
	"context"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// mappedStore is the store of a service with a workspace map
// (Options.WorkspaceMap): every session it reads has its workspace on
// this machine, where the service runs its kernel, checks its folder and
// snapshots it, while the store keeps the workspace as it was made. A
// session written back with the workspace it was read with is stored with
// the one it had; one moved to another folder here is stored at that
// folder.
type mappedStore struct {
	albedo.Store
	m  albedo.WorkspaceMap
	mu sync.Mutex
	// stored is the stored workspace of each session read with a mapped
	// one, by session id.
	stored map[string]string
}

// newMappedStore returns store with its sessions' workspaces mapped by m.
func newMappedStore(store albedo.Store, m albedo.WorkspaceMap) *mappedStore {
	return &mappedStore{Store: store, m: m, stored: map[string]string{}}
}

// local maps sess's workspace here, remembering the stored one.
func (s *mappedStore) local(sess *albedo.Session) {
	here := s.m.Local(sess.Workspace)
	s.mu.Lock()
	defer s.mu.Unlock()
	if here == sess.Workspace {
		delete(s.stored, sess.ID)
		return
	}
	s.stored[sess.ID] = sess.Workspace
	sess.Workspace = here
}

// Session returns one session, its workspace mapped here.
func (s *mappedStore) Session(ctx context.Context, id string) (albedo.Session, error) {
	sess, err := s.Store.Session(ctx, id)
	if err == nil {
		s.local(&sess)
	}
	return sess, err
}

// Sessions returns every session, their workspaces mapped here.
func (s *mappedStore) Sessions(ctx context.Context) ([]albedo.Session, error) {
	list, err := s.Store.Sessions(ctx)
	for i := range list {
		s.local(&list[i])
	}
	return list, err
}

// Commit commits change with the session it writes, if any, at its
// stored workspace when it still has the one it was read with.
func (s *mappedStore) Commit(ctx context.Context, change albedo.Commit) (albedo.Committed, error) {
	if sess := change.Session; sess != nil {
		s.mu.Lock()
		stored, ok := s.stored[sess.ID]
		s.mu.Unlock()
		if ok && s.m.Local(stored) == sess.Workspace {
			back := *sess
			back.Workspace = stored
			change.Session = &back
		}
	}
	return s.Store.Commit(ctx, change)
}

// DeleteSession deletes a session and forgets its stored workspace.
func (s *mappedStore) DeleteSession(ctx context.Context, id string) error {
	err := s.Store.DeleteSession(ctx, id)
	if err == nil {
		s.mu.Lock()
		delete(s.stored, id)
		s.mu.Unlock()
	}
	return err
}
