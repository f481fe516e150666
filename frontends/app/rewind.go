package app

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// Rewind puts back the files an idle session's steps changed after a
// checkpoint (see engine.Service.Rewind), or with DryRun says what it
// would do.
func (a *App) Rewind(ctx context.Context, id string, body wire.Rewind) (wire.Rewound, error) {
	if body.Checkpoint == nil {
		return wire.Rewound{}, albedo.Errorf(albedo.EInvalid, `a rewind needs "checkpoint": a transcript item id, or 0 for the start`)
	}
	fork := false
	switch body.Conversation {
	case "", "keep":
	case "fork":
		fork = true
	default:
		return wire.Rewound{}, albedo.Errorf(albedo.EInvalid, `"conversation" is "keep" or "fork", not %q`, body.Conversation)
	}
	r, err := a.svc.Rewind(ctx, id, engine.Rewind{Checkpoint: *body.Checkpoint, DryRun: body.DryRun, Force: body.Force, Fork: fork})
	if err != nil {
		return wire.Rewound{}, err
	}
	out := wire.Rewound{
		Checkpoint: *body.Checkpoint, DryRun: body.DryRun, Undo: r.Undo,
		Restored: changes(r.Restore), Kept: changes(r.Kept), Conflicts: changes(r.Conflicts),
	}
	if body.Force {
		out.Restored = append(out.Restored, out.Conflicts...)
	}
	if r.Fork != nil {
		s := session(*r.Fork)
		out.Session = &s
	}
	return out, nil
}

// changes shows file changes as the API does, never null.
func changes(list []albedo.FileChange) []wire.Change {
	out := make([]wire.Change, len(list))
	for i, c := range list {
		out[i] = wire.Change{Path: c.Path, Kind: c.Kind}
	}
	return out
}

// Checkpoints lists a session's steps with snapshots, oldest first, with
// how many files each created, modified and deleted and the changes made
// outside the session before it.
func (a *App) Checkpoints(ctx context.Context, id string) (wire.Checkpoints, error) {
	steps, err := a.svc.Checkpoints(ctx, id)
	if err != nil {
		return wire.Checkpoints{}, err
	}
	out := wire.Checkpoints{Items: make([]wire.CheckpointStep, len(steps))}
	for i, st := range steps {
		c := wire.CheckpointStep{Seq: st.Seq, Checkpoint: st.Checkpoint, Outside: changes(st.Outside), Pruned: st.Pruned}
		for _, ch := range st.Changes {
			switch ch.Kind {
			case albedo.FileCreated:
				c.Created++
			case albedo.FileDeleted:
				c.Deleted++
			default:
				c.Modified++
			}
		}
		out.Items[i] = c
	}
	return out, nil
}

// Diff compares the files of a session at two checkpoints (see
// engine.Service.Diff).
func (a *App) Diff(ctx context.Context, id string, r wire.DiffRange) (wire.Diff, error) {
	d, err := a.svc.Diff(ctx, id, engine.DiffRange{From: r.From, To: r.To})
	if err != nil {
		return wire.Diff{}, err
	}
	out := wire.Diff{From: d.From, To: d.To, Files: make([]wire.FileDiff, len(d.Files))}
	for i, f := range d.Files {
		out.Files[i] = wire.FileDiff{Path: f.Path, Status: f.Kind, Added: f.Added, Deleted: f.Deleted,
			Binary: f.Binary, Patch: f.Patch, PatchCut: f.PatchCut}
	}
	return out, nil
}
