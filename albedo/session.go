package albedo

import "time"

// Protocol names the wire protocol a model provider speaks.
type Protocol string

// The two OpenAI protocols albedo speaks.
const (
	ProtocolResponses       Protocol = "responses"
	ProtocolChatCompletions Protocol = "chat_completions"
)

// Valid reports whether p is a protocol albedo speaks.
func (p Protocol) Valid() bool {
	return p == ProtocolResponses || p == ProtocolChatCompletions
}

// Stage is the durable state of a session's turn engine.
type Stage string

// Session stages. A session whose stage is StageRunning when the daemon
// starts was interrupted by a crash and is resumed.
const (
	StageIdle    Stage = "idle"
	StageRunning Stage = "running"
)

// DefaultTitle is the title of a session that has no user message yet.
const DefaultTitle = "new session"

// LegacyProvider is the provider name sessions from a legacy store bind to.
const LegacyProvider = "default"

// Session is one coding-agent conversation bound to a workspace folder and
// a model provider.
type Session struct {
	ID        string
	Workspace string
	// Provider is the name of the provider in the configuration.
	Provider string
	// Model is the session's own model; it does not follow the provider's
	// default once the session exists.
	Model    string
	Protocol Protocol
	// Effort is the reasoning effort ("", "low", "medium" or "high").
	Effort string
	Title  string
	// Name is the user's own name for the session, empty when unnamed.
	Name  string
	Stage Stage
	// ParentID and Checkpoint record where a fork branched from.
	ParentID   string
	Checkpoint int64
	// KernelUsed is true once a cell has run since the kernel last started
	// fresh; the next fresh start then tells the model its globals are gone.
	KernelUsed bool
	// Compacting is the strategy (CompactForced or CompactManual) of a
	// compaction under way, "" when none is. It is stored before the
	// summary is asked for and cleared with the state it makes, so that a
	// compaction albedo died in is done again when the session resumes.
	Compacting string
	// Usage sums the session's successful model requests. The service
	// fills it from the request ledger; stores neither keep nor fill it.
	Usage UsageTotals
	// Node names the daemon whose live lease runs the session's turn
	// where several daemons share the store, "" when none holds one (and
	// always on a store one daemon alone writes). The service fills it
	// from the leases; stores neither keep nor fill it.
	Node string
	// Revision increases with every write; it guards conditional updates.
	Revision int64
	// Archived sessions are left out of the listing unless asked for.
	Archived  bool
	CreatedAt time.Time
	UpdatedAt time.Time
}
