package albedo

import "context"

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
	// Restore puts each of paths (relative to the workspace) back as the
	// snapshot has it: its content and mode, or no file where the snapshot
	// has none. It is all or nothing across a crash: a restore cut short
	// is finished by Recover.
	Restore(ctx context.Context, workspace, snapshot string, paths []string) error
	// Recover finishes the restores a crash cut short.
	Recover(ctx context.Context) error
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
