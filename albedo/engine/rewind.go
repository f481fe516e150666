package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// Rewind is what a rewind is asked to do (see wire.Rewind).
type Rewind struct {
	Checkpoint int64
	DryRun     bool
	Force      bool
	// Fork also forks the session at the checkpoint; the rewind's note
	// goes to the fork.
	Fork bool
}

// Rewound is what a rewind did, or for a dry run would do.
type Rewound struct {
	albedo.RewindPlan
	// Undo is the checkpoint that undoes the rewind, 0 when it restored
	// nothing or was a dry run.
	Undo int64
	// Fork is the session a rewind with Fork made.
	Fork *albedo.Session
}

// maxNotedPaths bounds how many restored paths the rewind's note names.
const maxNotedPaths = 20

// Rewind puts the files that the session's steps (its calls, and its
// earlier rewinds) changed after the checkpoint back as they were there,
// in an idle session. Paths changed only outside the session are kept; a
// path changed by both is a conflict, which fails the rewind (EConflict,
// naming them) unless Force. The model is told in its next request which
// files were restored. A rewind is a step itself: rewinding to Undo
// undoes it.
func (s *Service) Rewind(ctx context.Context, id string, r Rewind) (Rewound, error) {
	st, err := s.existing(ctx, id)
	if err != nil {
		return Rewound{}, err
	}
	if s.checkpoints == nil {
		return Rewound{}, albedo.Errorf(albedo.EConflict, "this albedo takes no snapshots (no git on PATH): there is nothing to rewind to")
	}
	if r.Checkpoint < 0 {
		return Rewound{}, albedo.Errorf(albedo.EInvalid, "checkpoint must be a transcript item id, or 0 for the start")
	}
	st.row.Lock()
	defer st.row.Unlock()
	if st.running() != nil {
		return Rewound{}, albedo.Errorf(albedo.EBusy, "session %s is running a turn: interrupt it or wait before rewinding", id)
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return Rewound{}, err
	}
	items, err := s.store.Items(ctx, id, 0, 0)
	if err != nil {
		return Rewound{}, err
	}
	if last := len(items); last == 0 || items[last-1].Seq < r.Checkpoint {
		return Rewound{}, albedo.Errorf(albedo.ENotFound, "session %s has no item %d", id, r.Checkpoint)
	}
	plan, target, now, err := s.planRewind(ctx, sess.Workspace, albedo.Steps(items), r.Checkpoint)
	if errors.Is(err, albedo.ErrSnapshotPruned) {
		return Rewound{}, pruned(fmt.Sprintf("checkpoint %d", r.Checkpoint))
	}
	if err != nil || r.DryRun {
		return Rewound{RewindPlan: plan}, err
	}
	if len(plan.Conflicts) > 0 && !r.Force {
		return Rewound{RewindPlan: plan}, conflicts(plan.Conflicts)
	}
	restore := append(append([]albedo.FileChange(nil), plan.Restore...), plan.Conflicts...)
	out := Rewound{RewindPlan: plan}
	noteTo := id
	if r.Fork {
		f, err := s.Fork(ctx, id, r.Checkpoint)
		if err != nil {
			return Rewound{}, err
		}
		out.Fork, noteTo = &f, f.ID
	}
	if len(restore) == 0 {
		return out, nil
	}
	paths := make([]string, len(restore))
	for i, c := range restore {
		paths[i] = c.Path
	}
	if err := s.checkpoints.Restore(ctx, sess.Workspace, target, paths); err != nil {
		return Rewound{}, fmt.Errorf("rewind session %s to %d: %w", id, r.Checkpoint, err)
	}
	after, err := s.checkpoints.Snapshot(ctx, sess.Workspace, nil)
	if err != nil {
		s.log.Warn("snapshot after a rewind", "session", id, "err", err)
		after = target
	}
	note := rewindNote(r.Checkpoint, restore, now, after)
	note.Timestamp = s.now()
	stored, err := s.append(ctx, s.state(noteTo), noteTo, note)
	if err != nil {
		return Rewound{}, err
	}
	out.Undo = stored[0].Seq - 1
	return out, nil
}

// planRewind compares the workspace as it is now (a fresh snapshot, which
// changes no file) with the checkpoint: the checkpoint's files are the
// snapshot before the first step after it; each step's own changes are
// the session's, and what changed between steps, or since the last, is
// outside it.
func (s *Service) planRewind(ctx context.Context, ws string, steps []albedo.Step, checkpoint int64) (plan albedo.RewindPlan, target, now string, err error) {
	i := 0
	for i < len(steps) && steps[i].Seq <= checkpoint {
		i++
	}
	if i == len(steps) {
		return plan, "", "", nil
	}
	steps = steps[i:]
	target = steps[0].Before
	if target == "" {
		return plan, "", "", albedo.Errorf(albedo.EConflict, "no snapshot was taken before item %d: it cannot be rewound to", steps[0].Seq)
	}
	now, err = s.checkpoints.Snapshot(ctx, ws, nil)
	if err != nil {
		return plan, "", "", fmt.Errorf("snapshot the workspace to rewind it: %w", err)
	}
	byStep, outside := map[string]bool{}, map[string]bool{}
	add := func(set map[string]bool, from, to string) error {
		changes, err := s.checkpoints.Changes(ctx, ws, from, to)
		for _, c := range changes {
			set[c.Path] = true
		}
		return err
	}
	prev := target
	for _, st := range steps {
		before := st.Before
		if before == "" {
			before = prev
		}
		if err := add(outside, prev, before); err != nil {
			return plan, "", "", err
		}
		if err := add(byStep, before, st.After); err != nil {
			return plan, "", "", err
		}
		prev = st.After
	}
	if err := add(outside, prev, now); err != nil {
		return plan, "", "", err
	}
	current, err := s.checkpoints.Changes(ctx, ws, target, now)
	if err != nil {
		return plan, "", "", err
	}
	return albedo.PlanRewind(current, byStep, outside), target, now, nil
}

// conflicts is the error of a rewind refused for paths changed both by
// the session and outside it.
func conflicts(changes []albedo.FileChange) error {
	paths := make([]string, len(changes))
	list := make([]any, len(changes))
	for i, c := range changes {
		paths[i], list[i] = c.Path, c.Path
	}
	return &albedo.Error{Code: albedo.EConflict, Details: map[string]any{"conflicts": list},
		Message: "changed since by the session and outside it: " + strings.Join(paths, ", ") + " (force restores them too)"}
}

// rewindNote is the item a rewind leaves: a system note for the model,
// and the step's snapshots for a later rewind.
func rewindNote(checkpoint int64, restored []albedo.FileChange, before, after string) albedo.Item {
	names := make([]string, 0, min(len(restored), maxNotedPaths))
	changes := make([]albedo.Change, len(restored))
	for i, c := range restored {
		if i < maxNotedPaths {
			names = append(names, c.Path)
		}
		changes[i] = albedo.Change{Path: c.Path, Kind: c.Kind}
	}
	list := strings.Join(names, ", ")
	if more := len(restored) - len(names); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	text := fmt.Sprintf("The user rewound the workspace's files to item %d: %s restored as they were there. Objects in the Python kernel's memory may be stale: read the files again before relying on them.", checkpoint, list)
	return albedo.Item{Kind: albedo.KindUser, Source: albedo.RewindSource, Text: text, Result: &albedo.CellResult{
		Status: albedo.CellOK, Trace: albedo.Trace{Changes: changes, Checkpoint: &wire.Checkpoint{Before: before, After: after}},
	}}
}

// StepChanges is one step of a session with what it changed and what
// changed outside the session just before it.
type StepChanges struct {
	albedo.Step
	Changes, Outside []albedo.FileChange
	// Pruned says a snapshot of the step is no longer kept: what it
	// changed is unknown, and it cannot be rewound to.
	Pruned bool
}

// Checkpoints lists a session's steps that recorded snapshots, oldest
// first, each with the files it changed and those changed outside the
// session between the step before it and it.
func (s *Service) Checkpoints(ctx context.Context, id string) ([]StepChanges, error) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.checkpoints == nil {
		return nil, albedo.Errorf(albedo.EConflict, "this albedo takes no snapshots (no git on PATH)")
	}
	items, err := s.store.Items(ctx, id, 0, 0)
	if err != nil {
		return nil, err
	}
	steps := albedo.Steps(items)
	out := make([]StepChanges, len(steps))
	prev := ""
	for i, st := range steps {
		out[i].Step = st
		before := st.Before
		if before == "" {
			before = prev
		}
		if before != "" {
			out[i].Changes, err = s.checkpoints.Changes(ctx, sess.Workspace, before, st.After)
		}
		if err == nil && prev != "" && st.Before != "" {
			out[i].Outside, err = s.checkpoints.Changes(ctx, sess.Workspace, prev, st.Before)
		}
		if errors.Is(err, albedo.ErrSnapshotPruned) {
			out[i].Changes, out[i].Outside, out[i].Pruned, err = nil, nil, true, nil
		}
		if err != nil {
			return nil, err
		}
		prev = st.After
	}
	return out, nil
}
