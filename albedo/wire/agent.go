package wire

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
)

// ErrStreamEnded says albedo ended a session's event stream, as it does
// when it shuts down or when a reader falls too far behind. Subscribing
// again picks up where things are.
var ErrStreamEnded = errors.New("the daemon ended the event stream")

// Agent is albedo as a program drives it, in process or through a daemon.
// The HTTP client of frontends/client and the embedded albedo of
// frontends/embedded both implement it with the same types, so a program
// written against Agent moves between the two by changing the one call
// that makes it.
type Agent interface {
	SessionAPI
	TurnAPI
	VentAPI
	// Close releases what the agent holds.
	Close() error
}

// SessionAPI manages sessions.
type SessionAPI interface {
	// CreateSession makes a session in workspace (an absolute path) bound
	// to the named provider, or to the active one when provider is empty.
	CreateSession(ctx context.Context, workspace, provider string) (Session, error)
	// Sessions lists every session, most recently updated first.
	Sessions(ctx context.Context) ([]Session, error)
	// Session returns a session with its last tail events (the default of
	// 50 when tail is negative) and its glances.
	Session(ctx context.Context, id string, tail int) (SessionDetail, error)
	// Config returns a session's editable configuration and its ETag.
	Config(ctx context.Context, id string) (Config, error)
	// Rename gives a session a name.
	Rename(ctx context.Context, id, name string) (Config, error)
	// History returns a session's whole transcript.
	History(ctx context.Context, id string) ([]HistoryItem, error)
	// Tree returns up to limit checkpoints after the checkpoint after
	// (limit 0: 100).
	Tree(ctx context.Context, id string, after int64, limit int) (TreePage, error)
	// Fork makes a session whose transcript is the session's up to and
	// including the checkpoint.
	Fork(ctx context.Context, id string, checkpoint int64) (Session, error)
	// Rewind puts back the files an idle session's steps changed after a
	// checkpoint, or with DryRun answers the plan only (see Rewind).
	Rewind(ctx context.Context, id string, r Rewind) (Rewound, error)
	// Checkpoints lists a session's steps with the snapshots around them.
	Checkpoints(ctx context.Context, id string) (Checkpoints, error)
	// Diff compares the files of a session at two checkpoints.
	Diff(ctx context.Context, id string, r DiffRange) (Diff, error)
	// MoveWorkspace points an idle session at another workspace folder.
	MoveWorkspace(ctx context.Context, id, workspace string) (Session, error)
	// SwitchModel rebinds an idle session to a provider (its own when
	// empty) and model, which also become the default for new sessions.
	SwitchModel(ctx context.Context, id, provider, model string) (ModelChoice, error)
	// Command runs a slash command with JSON-encodable args (nil: none)
	// and returns its result as JSON.
	Command(ctx context.Context, id, name string, args any) (json.RawMessage, error)
	// FindSessions lists the sessions f matches, most recently updated
	// first, and the cursor of the next page ("" on the last).
	FindSessions(ctx context.Context, f SessionFilter) ([]Session, string, error)
	// SetArchived archives a session (true) or brings it back (false), at
	// the revision it reads.
	SetArchived(ctx context.Context, id string, archived bool) (Config, error)
	// DeleteSession deletes an idle session and everything kept for it
	// but the vents it filed (CodeBusy while it runs a turn).
	DeleteSession(ctx context.Context, id string) error
}

// TurnAPI talks to a session: messages, turns and their events.
type TurnAPI interface {
	// Send gives a session a user message with an optional image. An idle
	// session starts a turn; a busy one queues the message for its next
	// model request, and queued is true.
	Send(ctx context.Context, id, text string, img *Image) (queued bool, err error)
	// Status reports whether a session is running a turn.
	Status(ctx context.Context, id string) (running bool, err error)
	// Wait blocks until a session runs no turn, or ctx ends.
	Wait(ctx context.Context, id string) error
	// Interrupt stops a session's running turn and returns once it ended.
	Interrupt(ctx context.Context, id string) error
	// DropQueued removes a message still waiting in a session's queue.
	DropQueued(ctx context.Context, id string, queueID int64) error
	// SendQueued starts a turn on the messages waiting in an idle
	// session's queue; started is false when a turn already runs.
	SendQueued(ctx context.Context, id string) (started bool, err error)
	// Watch yields a session's events so far and then those that follow
	// as they happen. When it ends it yields one last non-nil error:
	// ErrStreamEnded when albedo ended the stream, ctx's error when ctx
	// ended, else what went wrong.
	Watch(ctx context.Context, id string) iter.Seq2[Event, error]
}

// VentAPI reads and triages the vent ledger. Vent ids are decimal strings.
type VentAPI interface {
	// Vents returns up to limit vents (0: 50), newest first, starting
	// after cursor ("" for the newest).
	Vents(ctx context.Context, limit int, cursor string) (VentPage, error)
	// Vent returns one vent.
	Vent(ctx context.Context, id string) (Vent, error)
	// ReplyVent answers a vent; the reply reaches the filing session on
	// its next turn when that session still exists.
	ReplyVent(ctx context.Context, id, text string) (VentReply, error)
	// DismissVent closes a vent without resolving it.
	DismissVent(ctx context.Context, id string) (Vent, error)
	// DeleteVent removes a vent from the ledger.
	DeleteVent(ctx context.Context, id string) error
}

// Replay yields a stream's snapshot and then its events until they end or
// yield stops: the body of every Watch.
func Replay(snapshot []Event, events iter.Seq2[Event, error], yield func(Event, error) bool) {
	for _, ev := range snapshot {
		if !yield(ev, nil) {
			return
		}
	}
	for ev, err := range events {
		if !yield(ev, err) {
			return
		}
	}
}
