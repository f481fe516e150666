package albedo

import "github.com/albedo-agent/albedo/albedo/wire"

// RewindSource marks the user item a rewind leaves in the transcript: the
// model reads it as a system note, and its result's trace records the
// snapshots before and after the rewind, which makes it a step that a
// later rewind can undo.
const RewindSource = "rewind"

// Step is one recorded change of a session's workspace: a cell (or other
// tool call), or a rewind, with the snapshots before and after it.
type Step struct {
	// Seq is the item that records it.
	Seq int64
	wire.Checkpoint
}

// Steps returns the steps the items record, in transcript order.
func Steps(items []Item) []Step {
	var steps []Step
	for _, it := range items {
		if it.Result != nil && it.Result.Trace.Checkpoint != nil && it.Result.Trace.Checkpoint.After != "" {
			steps = append(steps, Step{Seq: it.Seq, Checkpoint: *it.Result.Trace.Checkpoint})
		}
	}
	return steps
}

// RewindPlan is what a rewind does: the changes since the checkpoint
// (Current) sorted by whose they are.
type RewindPlan struct {
	// Restore are the paths the session's steps changed, to put back.
	Restore []FileChange
	// Kept are the paths changed only outside the session.
	Kept []FileChange
	// Conflicts are the paths changed by both.
	Conflicts []FileChange
}

// PlanRewind sorts current, how the files now differ from the checkpoint,
// by who changed each path: byStep holds the paths the session's steps
// changed since, outside those changed between the steps (or since the
// last). A path whose changes cancelled out is not in current and is left
// alone.
func PlanRewind(current []FileChange, byStep, outside map[string]bool) RewindPlan {
	var p RewindPlan
	for _, c := range current {
		step, out := byStep[c.Path], outside[c.Path]
		switch {
		case step && out:
			p.Conflicts = append(p.Conflicts, c)
		case step:
			p.Restore = append(p.Restore, c)
		default:
			p.Kept = append(p.Kept, c)
		}
	}
	return p
}
