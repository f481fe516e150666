package albedo

import (
	"context"
	"errors"
)

// Checkpoints snapshots a workspace's files and puts chosen paths back as a
// snapshot had them, so that what a session's cells did to the files can
// be undone. A snapshot is named by an id that two snapshots of identical
// files share. adapters/gitshadow implements it with the git binary in a
// repository of its own, apart from any repository of the workspace.
//
// What a snapshot holds is the adapter's rule (its ignore rules, size and
// count limits); a workspace it cannot snapshot within its limits answers
// an *Error with code ETooLarge, and then every later call for that
// workspace does too, saying why.
type Checkpoints interface {
	// Snapshot records the workspace's files as they are now and returns
	// the snapshot's id. written are paths a cell is known to have
	// written; they are recorded even where the ignore rules leave them
	// out (within the size limit).
	Snapshot(ctx context.Context, workspace string, written []string) (string, error)
	// Changes lists the paths that differ between two snapshots of the
	// workspace, in path order.
	Changes(ctx context.Context, workspace, from, to string) ([]FileChange, error)
	// Diff is Changes with each path's line counts and patch, within
	// bounds.
	Diff(ctx context.Context, workspace, from, to string, bounds DiffBounds) ([]FileDiff, error)
	// Restore puts each of paths (relative to the workspace) back as the
	// snapshot has it: its content and mode, or no file where the snapshot
	// has none. It is all or nothing across a crash: a restore cut short
	// is finished by Recover.
	Restore(ctx context.Context, workspace, snapshot string, paths []string) error
	// Recover finishes the restores a crash cut short.
	Recover(ctx context.Context) error
	// A snapshot the adapter no longer keeps answers an error wrapping
	// ErrSnapshotPruned, from Changes, Diff and Restore alike.
}

// FileChange is one path that differs between two snapshots.
type FileChange struct {
	// Path is relative to the workspace, with forward slashes.
	Path string
	// Kind is "created", "modified" or "deleted" (a change of mode alone
	// is "modified").
	Kind string
}

// File change kinds, as traces name them.
const (
	FileCreated  = "created"
	FileModified = "modified"
	FileDeleted  = "deleted"
)

// FileDiff is one path that differs between two snapshots, with its
// line counts and its patch.
type FileDiff struct {
	FileChange
	// Added and Deleted count the lines the patch adds and removes; both
	// are 0 for a binary file.
	Added, Deleted int
	// Binary says git found the file binary: its patch has no lines.
	Binary bool
	// Patch is the file's patch in git's unified format, cut at a line
	// end to DiffBounds (ending with PatchCutMarker's line) or empty past
	// the whole diff's bound.
	Patch string
	// PatchCut says Patch is not the whole patch.
	PatchCut bool
}

// DiffBounds bound the patches of a diff.
type DiffBounds struct {
	// FileBytes is the longest patch of one file.
	FileBytes int
	// TotalBytes is the most bytes of patches of the whole diff; the
	// files past it have an empty patch.
	TotalBytes int
}

// DefaultDiffBounds are the bounds of GET /sessions/{id}/diff.
func DefaultDiffBounds() DiffBounds {
	return DiffBounds{FileBytes: 32 << 10, TotalBytes: 512 << 10}
}

// PatchCutMarker starts the line that ends a patch cut to its bound.
const PatchCutMarker = "\\ albedo: patch cut"

// ErrSnapshotPruned says a snapshot is no longer kept: the shadow's
// pruning (its keepDays and keepSnapshots bounds) dropped it.
var ErrSnapshotPruned = errors.New("the snapshot was pruned")
