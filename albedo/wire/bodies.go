package wire

import "encoding/json"

// CreateSession is the body of POST /sessions.
type CreateSession struct {
	// Workspace is an absolute path to a folder.
	Workspace string `json:"workspace"`
	// Provider names a configured provider; empty means the active one.
	Provider string `json:"provider,omitempty"`
}

// ConfigPatch is the body of PATCH /sessions/{id}?view=configuration: a
// name, an archived flag, or both.
type ConfigPatch struct {
	// Name is the new name; empty removes it.
	Name *string `json:"name,omitempty"`
	// Archived archives the session (true) or brings it back (false).
	Archived *bool `json:"archived,omitempty"`
}

// Deleted is the answer of a DELETE: the id of what is gone.
type Deleted struct {
	Deleted string `json:"deleted"`
}

// Message is the body of POST /sessions/{id}/events.
type Message struct {
	// Content is the message's text. Required.
	Content *string `json:"content"`
	Image   *Image  `json:"image,omitempty"`
}

// Sent is the answer of POST /sessions/{id}/events.
type Sent struct {
	// Queued is true when the message waits for the running turn's next
	// model request.
	Queued bool `json:"queued"`
}

// Status is the answer of GET /sessions/{id}/status and of POST
// /sessions/{id}/interrupt.
type Status struct {
	Running bool `json:"running"`
}

// Fork is the body of POST /sessions/{id}/fork.
type Fork struct {
	// Checkpoint is a tree item id. Required.
	Checkpoint *int64 `json:"checkpoint"`
}

// Rewind is the body of POST /sessions/{id}/rewind.
type Rewind struct {
	// Checkpoint is a transcript item id (0: the start): the files the
	// session's steps after it changed are put back as they were there.
	// Required.
	Checkpoint *int64 `json:"checkpoint"`
	// DryRun answers the plan and changes nothing.
	DryRun bool `json:"dry_run,omitempty"`
	// Force restores the paths changed both by the session and outside
	// it too, instead of refusing.
	Force bool `json:"force,omitempty"`
	// Conversation is "keep" (the default) or "fork": fork also makes a
	// new session whose transcript ends at the checkpoint, and leaves the
	// session itself unchanged.
	Conversation string `json:"conversation,omitempty"`
}

// Rewound is the answer of POST /sessions/{id}/rewind: what the rewind
// restores (or, for a dry run, would), what it keeps, and what it
// refuses. Each change says how the file now differs from the
// checkpoint.
type Rewound struct {
	Checkpoint int64 `json:"checkpoint"`
	DryRun     bool  `json:"dry_run"`
	// Restored are the paths the session's steps changed after the
	// checkpoint, put back.
	Restored []Change `json:"restored"`
	// Kept are the paths changed only outside the session (by the user,
	// between turns or before a cell): left as they are.
	Kept []Change `json:"kept"`
	// Conflicts are the paths changed both by the session and outside
	// it: restored only with force.
	Conflicts []Change `json:"conflicts"`
	// Undo is the checkpoint that undoes this rewind (0 for a dry run or
	// one that restored nothing).
	Undo int64 `json:"undo,omitempty"`
	// Session is the new session of conversation "fork".
	Session *Session `json:"session,omitempty"`
}

// Checkpoints is the answer of GET /sessions/{id}/checkpoints: the
// session's steps that recorded snapshots, oldest first.
type Checkpoints struct {
	Items []CheckpointStep `json:"items"`
}

// CheckpointStep is one step of a session (a tool call, or a rewind) with
// the snapshots around it: what it changed, and what changed outside the
// session between the step before it and it.
type CheckpointStep struct {
	// Seq is the item that records the step (a tool output, or a rewind's
	// user item); rewinding to Seq-1 undoes the step and those after it.
	Seq        int64 `json:"seq"`
	Checkpoint `json:"snapshots"`
	Created    int      `json:"created"`
	Modified   int      `json:"modified"`
	Deleted    int      `json:"deleted"`
	Outside    []Change `json:"outside"`
	// Pruned says the step's snapshots are no longer kept (the
	// checkpoints' keepDays and keepSnapshots): its counts are 0 and it
	// cannot be rewound to.
	Pruned bool `json:"pruned,omitempty"`
}

// MoveWorkspace is the body of POST /sessions/{id}/workspace.
type MoveWorkspace struct {
	Workspace string `json:"workspace"`
}

// Moved is the answer of POST /sessions/{id}/workspace.
type Moved struct {
	Session   Session `json:"session"`
	Workspace string  `json:"workspace"`
}

// Command is the body of POST /sessions/{id}/commands.
type Command struct {
	// Name is the command, such as "/model".
	Name string `json:"name"`
	// Args are the command's arguments, absent for none.
	Args json.RawMessage `json:"args,omitempty"`
}

// CommandResult is the answer of POST /sessions/{id}/commands.
type CommandResult struct {
	Result json.RawMessage `json:"result"`
}

// VentPatch is the body of PATCH /extensions/paperclips/items/{id}: a
// reply, a status, or both.
type VentPatch struct {
	Reply  *string `json:"reply,omitempty"`
	Status *string `json:"status,omitempty"`
}

// Health is the answer of GET /health.
type Health struct {
	// Albedo is the daemon's version string.
	Albedo       string   `json:"albedo"`
	Capabilities []string `json:"capabilities"`
	OK           bool     `json:"ok"`
	// Version is the API's version.
	Version int `json:"version"`
	// Sandbox is what a kernel started now runs under; nil from a daemon
	// without a sandbox.
	Sandbox *Sandbox `json:"sandbox,omitempty"`
	// Store names the kind of store the daemon keeps its data in:
	// "sqlite" (the default, in ALBEDO_HOME) or "postgresql".
	Store string `json:"store,omitempty"`
	// Node names this daemon where several share a PostgreSQL store
	// (ALBEDO_NODE, or the host name); empty otherwise.
	Node string `json:"node,omitempty"`
	// Running are the ids of the sessions whose turns this daemon runs
	// (it holds their leases) where several share a PostgreSQL store;
	// absent when it runs none.
	Running []string `json:"running,omitempty"`
}

// Sandbox says how the model's Python is confined: the policy's mode and
// network, and the protections (named as in adapters/landlock) the
// machine does and does not enforce.
type Sandbox struct {
	Mode        string   `json:"mode"`
	Network     bool     `json:"network"`
	Required    bool     `json:"required"`
	Enforced    []string `json:"enforced"`
	NotEnforced []string `json:"not_enforced"`
	// Problems are the invalid settings of the policy that were ignored.
	Problems []string `json:"problems,omitempty"`
}

// OK is the answer of POST /shutdown.
type OK struct {
	OK bool `json:"ok"`
}

// SessionFilter chooses the sessions a search lists (GET /sessions with
// q, workspace, archived, limit and cursor).
type SessionFilter struct {
	// Query matches a case-insensitive substring of the title or the
	// name, or a prefix of the id; empty matches every session.
	Query string
	// Workspace, when set, matches that exact folder.
	Workspace string
	// Archived is "" or "false" (sessions not archived), "true" (archived
	// ones only) or "all".
	Archived string
	// Limit bounds the page (0: every match); Cursor continues after the
	// page that gave it.
	Limit  int
	Cursor string
}

// DiffRange names the checkpoints GET /sessions/{id}/diff compares, its
// query's from and to (transcript item ids); nil takes the default: from
// 0 (the start), to the session's last item.
type DiffRange struct {
	From *int64 `json:"from,omitempty"`
	To   *int64 `json:"to,omitempty"`
}

// Diff is the answer of GET /sessions/{id}/diff: the files that differ
// between the files at checkpoint from (as a rewind to it would put them)
// and at checkpoint to (as the last step at or before it left them), in
// path order.
type Diff struct {
	From  int64      `json:"from"`
	To    int64      `json:"to"`
	Files []FileDiff `json:"files"`
}

// FileDiff is one file of a Diff.
type FileDiff struct {
	Path string `json:"path"`
	// Status is "created", "modified" or "deleted".
	Status string `json:"status"`
	// Added and Deleted count the lines added and removed (0 for a
	// binary file).
	Added   int  `json:"added"`
	Deleted int  `json:"deleted"`
	Binary  bool `json:"binary,omitempty"`
	// Patch is the file's patch in git's unified format, cut to 32 KiB
	// at a line end (its last line then starts with `\ albedo: patch
	// cut`), and empty once the diff's patches reach 512 KiB.
	Patch string `json:"patch"`
	// PatchCut says Patch is not the whole patch.
	PatchCut bool `json:"patch_cut,omitempty"`
}
