package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// turnSnapshots are the snapshots of a turn's workspace: the one taken as
// the turn starts, while its first model request is out, and the last
// one taken after a call.
type turnSnapshots struct {
	// start receives the snapshot taken as the turn started ("" when it
	// failed); nil when none was taken.
	start chan string
	// last is the newest snapshot, "" before the first call.
	last string
}

// startSnapshot snapshots the turn's workspace in the background, so that
// the first call finds the files as they were before it.
func (t *turn) startSnapshot(ctx context.Context) {
	if t.s.checkpoints == nil {
		return
	}
	ch := make(chan string, 1)
	t.snaps.start = ch
	ws := t.sess.Workspace
	go func() { ch <- t.s.snapshot(ctx, t.st, t.id, ws, nil) }()
}

// snapshotBefore returns the snapshot of the files as the next call finds
// them: the last call's, or the one taken as the turn started (waited for,
// within the snapshots' time limit).
func (t *turn) snapshotBefore(ctx context.Context) string {
	if t.snaps.last == "" && t.snaps.start != nil {
		select {
		case t.snaps.last = <-t.snaps.start:
		case <-ctx.Done():
		}
		t.snaps.start = nil
	}
	return t.snaps.last
}

// snapshotAfter snapshots the files as the call left them (even when it
// was interrupted, since it may have changed them before) and records the
// snapshots around it in the trace of its output, the first of out.
func (t *turn) snapshotAfter(ctx context.Context, before string, out []albedo.Item) {
	if t.s.checkpoints == nil || len(out) == 0 || out[0].Result == nil {
		return
	}
	res := out[0].Result
	after := t.s.snapshot(context.WithoutCancel(ctx), t.st, t.id, t.sess.Workspace, res.Trace.Changed())
	if after == "" {
		return
	}
	t.snaps.last = after
	res.Trace.Checkpoint = &wire.Checkpoint{Before: before, After: after}
}

// snapshot snapshots a session's workspace and returns the snapshot, ""
// when it failed; a workspace over the snapshots' limits has them turned
// off, which the session's glances say.
func (s *Service) snapshot(ctx context.Context, st *sessionState, id, workspace string, written []string) string {
	snap, err := s.checkpoints.Snapshot(ctx, workspace, written)
	off := ""
	if albedo.ErrorCode(err) == albedo.ETooLarge {
		off = albedo.ErrorMessage(err)
	} else if err != nil && ctx.Err() == nil {
		s.log.Warn("snapshot workspace", "session", id, "workspace", workspace, "err", err)
	}
	st.mu.Lock()
	st.snapshotsOff = off
	st.mu.Unlock()
	return snap
}

// snapshotsGlance is the glance of a session whose workspace takes no
// snapshots, saying why; ok is false when it takes them.
func (s *Service) snapshotsGlance(id string) (albedo.Glance, bool) {
	if s.checkpoints == nil {
		return nil, false
	}
	st := s.state(id)
	st.mu.Lock()
	off := st.snapshotsOff
	st.mu.Unlock()
	if off == "" {
		return nil, false
	}
	return albedo.Glance{"extension": "snapshots", "off": off}, true
}

// Snapshots says whether the service snapshots workspaces.
func (s *Service) Snapshots() bool { return s.checkpoints != nil }
