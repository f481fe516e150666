package embedded

import (
	"context"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// CreateSession makes a session in workspace (an absolute path to a
// folder) bound to the named provider, or to the active one when provider
// is empty, with that provider's model.
func (a *Albedo) CreateSession(ctx context.Context, workspace, provider string) (wire.Session, error) {
	s, err := a.app.CreateSession(ctx, wire.CreateSession{Workspace: workspace, Provider: provider})
	return s, failed(err, "create session in %s", workspace)
}

// Sessions lists every session, most recently updated first.
func (a *Albedo) Sessions(ctx context.Context) ([]wire.Session, error) {
	list, err := a.app.Sessions(ctx)
	return list, failed(err, "list sessions")
}

// Session returns a session with its last tail events (none when tail is
// 0, 50 when tail is negative), whether it runs a turn, and its glances:
// the model it is bound to, and the vent replies waiting for it.
func (a *Albedo) Session(ctx context.Context, id string, tail int) (wire.SessionDetail, error) {
	d, err := a.app.Session(ctx, id, tail)
	return d, failed(err, "get session %s", id)
}

// Config returns a session's editable configuration and its ETag.
func (a *Albedo) Config(ctx context.Context, id string) (wire.Config, error) {
	c, err := a.app.Config(ctx, id)
	return c, failed(err, "get configuration of session %s", id)
}

// Rename gives a session a name (at most 100 characters; empty removes
// it). Like the client, it changes the session at the revision it reads,
// so a concurrent change makes it fail with albedo.EStale.
func (a *Albedo) Rename(ctx context.Context, id, name string) (wire.Config, error) {
	cur, err := a.Config(ctx, id)
	if err != nil {
		return wire.Config{}, err
	}
	c, err := a.app.Configure(ctx, id, cur.Revision, wire.ConfigPatch{Name: &name})
	return c, failed(err, "rename session %s", id)
}

// History returns a session's whole transcript.
func (a *Albedo) History(ctx context.Context, id string) ([]wire.HistoryItem, error) {
	h, err := a.app.History(ctx, id)
	return h.Items, failed(err, "get history of session %s", id)
}

// Tree returns up to limit checkpoints of a session (100 when limit is 0
// or less) with ids above after (0 or less: from the start), and whether
// more follow.
func (a *Albedo) Tree(ctx context.Context, id string, after int64, limit int) (wire.TreePage, error) {
	if limit <= 0 {
		limit = -1 // the default page
	}
	page, err := a.app.Tree(ctx, id, after, limit)
	return page, failed(err, "get tree of session %s", id)
}

// Fork makes a new session whose transcript is the session's up to and
// including the checkpoint (a tree item id). The source is untouched; the
// branch starts with fresh Python globals, and a call copied without its
// output is never run.
func (a *Albedo) Fork(ctx context.Context, id string, checkpoint int64) (wire.Session, error) {
	s, err := a.app.Fork(ctx, id, checkpoint)
	return s, failed(err, "fork session %s at %d", id, checkpoint)
}

// Rewind puts back the files an idle session's steps changed after a
// checkpoint, or with DryRun answers the plan only (docs/checkpoints.md).
func (a *Albedo) Rewind(ctx context.Context, id string, r wire.Rewind) (wire.Rewound, error) {
	out, err := a.app.Rewind(ctx, id, r)
	return out, failed(err, "rewind session %s", id)
}

// Diff compares the files of a session at two checkpoints.
func (a *Albedo) Diff(ctx context.Context, id string, r wire.DiffRange) (wire.Diff, error) {
	out, err := a.app.Diff(ctx, id, r)
	return out, failed(err, "compare checkpoints of session %s", id)
}

// Checkpoints lists a session's steps with the snapshots around them.
func (a *Albedo) Checkpoints(ctx context.Context, id string) (wire.Checkpoints, error) {
	out, err := a.app.Checkpoints(ctx, id)
	return out, failed(err, "list checkpoints of session %s", id)
}

// MoveWorkspace points an idle session at another workspace folder (an
// absolute path), for instance after the old one was renamed. History is
// kept; the Python kernel starts afresh in the new folder.
func (a *Albedo) MoveWorkspace(ctx context.Context, id, workspace string) (wire.Session, error) {
	m, err := a.app.MoveWorkspace(ctx, id, workspace)
	return m.Session, failed(err, "move session %s to %s", id, workspace)
}
