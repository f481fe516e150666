package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/albedo-agent/albedo/albedo"
)

// CreateSession makes a session in workspace bound to the named provider,
// or to the active one when provider is empty, with that provider's model.
func (s *Service) CreateSession(ctx context.Context, workspace, provider string) (albedo.Session, error) {
	if err := s.checkNewWorkspace(workspace); err != nil {
		return albedo.Session{}, err
	}
	cfg, err := s.config.Load(ctx)
	if err != nil {
		return albedo.Session{}, err
	}
	pc, err := bindProvider(cfg, provider)
	if err != nil {
		return albedo.Session{}, err
	}
	now := s.clock.Now()
	sess := albedo.Session{
		ID:        newID(),
		Workspace: filepath.Clean(workspace),
		Provider:  pc.Name,
		Model:     pc.Model,
		Protocol:  pc.Protocol,
		Title:     albedo.DefaultTitle,
		Stage:     albedo.StageIdle,
		Revision:  1,
		CreatedAt: now,
		UpdatedAt: now,
	}
	if _, err := s.store.Commit(ctx, albedo.Commit{Session: &sess}); err != nil {
		return albedo.Session{}, fmt.Errorf("create session: %w", err)
	}
	return sess, nil
}

// LoginHint tells a person how to configure a provider.
const LoginHint = "add one with /login in the console, or in a shell with\n    albedo login"

// bindProvider picks the provider a new session binds to.
func bindProvider(cfg albedo.Config, name string) (albedo.ProviderConfig, error) {
	if len(cfg.Providers) == 0 {
		return albedo.ProviderConfig{}, albedo.Errorf(albedo.ENoProvider, "no model provider is configured: %s", LoginHint)
	}
	if name == "" {
		name = cfg.Active
		if name == "" {
			return albedo.ProviderConfig{}, albedo.Errorf(albedo.ENoProvider, "no active model provider is chosen: name one with albedo model PROVIDER MODEL, or %s", LoginHint)
		}
	}
	pc, ok := cfg.Providers[name]
	if !ok {
		return albedo.ProviderConfig{}, albedo.Errorf(albedo.ENoProvider, "provider %q is not configured: %s", name, LoginHint)
	}
	pc.Name = name
	return pc, nil
}

// tooBroad is the refusal of a workspace that is FolderTooBroad: a 400
// on a new session and on a move alike, for no state makes it right.
func tooBroad(path string) error {
	return albedo.Errorf(albedo.EInvalid, "workspace %q is too broad: it is /, your home folder, albedo's home or a folder holding it, all of which a kernel may write in; pick the project's folder (a daemon started with ALBEDO_ALLOW_ANY_WORKSPACE=1 allows it)", path)
}

// checkNewWorkspace validates the workspace of a new session.
func (s *Service) checkNewWorkspace(path string) error {
	if path == "" {
		return albedo.Errorf(albedo.EInvalid, "workspace is required")
	}
	if !filepath.IsAbs(path) {
		return albedo.Errorf(albedo.EInvalid, "workspace %q is not an absolute path", path)
	}
	switch s.workspaces.Folder(path) {
	case albedo.FolderMissing:
		return albedo.Errorf(albedo.EInvalid, "workspace %q does not exist", path)
	case albedo.FolderNotDir:
		return albedo.Errorf(albedo.EInvalid, "workspace %q is not a folder", path)
	case albedo.FolderTooBroad:
		return tooBroad(path)
	}
	return nil
}

// Session returns one session with its usage and the node running it.
func (s *Service) Session(ctx context.Context, id string) (albedo.Session, error) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return albedo.Session{}, err
	}
	list, err := s.withUsage(ctx, []albedo.Session{sess})
	if err != nil {
		return albedo.Session{}, err
	}
	return list[0], nil
}

// Sessions returns every session with its usage and the node running it,
// most recently updated first.
func (s *Service) Sessions(ctx context.Context) ([]albedo.Session, error) {
	list, err := s.store.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	return s.withUsage(ctx, list)
}

// withUsage fills in the usage of each session of list, and the node
// whose lease runs a running one where daemons share the store.
func (s *Service) withUsage(ctx context.Context, list []albedo.Session) ([]albedo.Session, error) {
	totals, err := s.store.RequestTotals(ctx)
	if err != nil {
		return nil, fmt.Errorf("sum the usage of sessions: %w", err)
	}
	var nodes map[string]string
	running := func(x albedo.Session) bool { return x.Stage == albedo.StageRunning }
	if s.leases != nil && slices.ContainsFunc(list, running) { // only a running session names a node
		if nodes, err = s.leases.port.Holders(ctx); err != nil {
			return nil, fmt.Errorf("read which daemons run the sessions: %w", err)
		}
	}
	for i := range list {
		list[i].Usage = totals[list[i].ID]
		list[i].Node = runningOn(list[i], nodes[list[i].ID])
	}
	return list, nil
}

// runningOn is the node to show for sess whose live lease node holds: an
// idle session names none, for a lease outlives the turn it ran by the
// moment it takes to give it up (or, when giving it up failed, until it
// expires).
func runningOn(sess albedo.Session, node string) string {
	if sess.Stage != albedo.StageRunning {
		return ""
	}
	return node
}

// Leased returns the sessions whose leases this service holds and
// trusts, in order of id: the turns it runs while other processes share
// its store. Without leases it is nil.
func (s *Service) Leased() []string {
	if s.leases == nil {
		return nil
	}
	held := s.leases.snapshot()
	ids := make([]string, len(held))
	for i, h := range held {
		ids[i] = h.lease.SessionID
	}
	slices.Sort(ids)
	return ids
}

// Running reports whether a session is running a turn.
func (s *Service) Running(ctx context.Context, id string) (bool, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return false, err
	}
	return s.state(id).running() != nil, nil
}

// History returns a session's transcript.
func (s *Service) History(ctx context.Context, id string) ([]albedo.Item, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return nil, err
	}
	return s.store.Items(ctx, id, 0, 0)
}

// Tree returns up to limit checkpoints of a session with ids above after,
// and whether more follow.
func (s *Service) Tree(ctx context.Context, id string, after int64, limit int) ([]albedo.TreeNode, bool, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return nil, false, err
	}
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	nodes := make([]albedo.TreeNode, 0, limit)
	for {
		items, err := s.store.Items(ctx, id, after, limit+1)
		if err != nil {
			return nil, false, err
		}
		for _, it := range items {
			if n, ok := albedo.NodeOf(it); ok {
				if len(nodes) == limit {
					return nodes, true, nil
				}
				nodes = append(nodes, n)
			}
			after = it.Seq
		}
		if len(items) <= limit {
			return nodes, false, nil
		}
	}
}

// updateSession applies change to the stored session under its lock and
// writes it back with a new revision.
func (s *Service) updateSession(ctx context.Context, id string, change func(*albedo.Session) error) (albedo.Session, error) {
	return withRow(ctx, s, id, func(st *sessionState) (albedo.Session, error) {
		return s.updateLocked(ctx, id, change)
	})
}

// updateLocked is updateSession for a caller that holds st.row.
func (s *Service) updateLocked(ctx context.Context, id string, change func(*albedo.Session) error) (albedo.Session, error) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return albedo.Session{}, err
	}
	if err := change(&sess); err != nil {
		return albedo.Session{}, err
	}
	expect := s.touch(&sess)
	if _, err := s.store.Commit(ctx, albedo.Commit{Session: &sess, Expect: expect}); err != nil {
		return albedo.Session{}, fmt.Errorf("update session %s: %w", id, err)
	}
	return sess, nil
}

// touch marks a session as written now, and returns the revision the
// write replaces.
func (s *Service) touch(sess *albedo.Session) (replaces int64) {
	replaces = sess.Revision
	sess.Revision++
	sess.UpdatedAt = s.clock.Now()
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = sess.UpdatedAt
	}
	return replaces
}
