package albedo

import (
	"context"
	"encoding/json"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Store keeps sessions, transcripts, queued messages and vents durably.
// Every method is safe for concurrent use. Lookups of missing records return
// an *Error with code ENotFound. fixtures/storetest checks an
// implementation against this contract.
//
// Writes are guarded where two writers could clash: a session write names
// the revision it replaces (Commit.Expect) and a vent write the vent's
// revision, and a stale one fails with EStale without landing. A store one
// process writes (SQLite: the albedo home's lock gives one daemon or one
// embedded albedo per home) may rely on being the only writer: item
// numbers (Seq) and queue ids are assigned as the next of that process's
// writes, and reads may come from a cache that only its own writes update.
// A store several processes share (PostgreSQL, with Leases) writes a
// session's transcript only under its lease: every commit of a session
// whose lease the process holds is fenced by it (Commit.Lease), checked in
// the commit's own transaction, and Seq is drawn there from a counter on
// the session's row, which only a commit that lands advances.
//
// The engine relies on it for three caches of what every model request
// reads, which a write by another process would leave stale; each is kept
// right by the session's lease (dropped when a lease is taken that does
// not follow this process's last one directly). Each pays on
// a long turn: the daemon's CPU per tool round at round 500 of one turn,
// with a 128k-token context window (bench/turn_cpu.py --context-window
// 128000), is 4.9 ms with all three, and without
//   - a running session's transcript, read once and then appended to as
//     its commits land: 16.5 ms;
//   - the projection the session's last request sent, extended by what
//     was appended since: 8.6 ms;
//   - each session's compaction state and newest ledger row of each
//     kind, kept as the engine writes them: 6.7 ms.
type Store interface {
	// Session returns one session.
	Session(ctx context.Context, id string) (Session, error)
	// Sessions returns every session, most recently updated first.
	Sessions(ctx context.Context) ([]Session, error)
	// Commit applies one change atomically: all of it lands or none of it.
	// It returns the appended items with their Seq assigned and the
	// enqueued messages with their IDs assigned.
	Commit(ctx context.Context, change Commit) (Committed, error)
	// Items returns a session's transcript items with Seq > after in
	// ascending order, at most limit of them (limit <= 0: all).
	Items(ctx context.Context, sessionID string, after int64, limit int) ([]Item, error)
	// ItemPage returns the items of a session's transcript that q selects,
	// in ascending order. A missing session is ENotFound.
	ItemPage(ctx context.Context, sessionID string, q ItemQuery) ([]Item, error)
	// DeleteSession removes a session and every record keyed by it, except
	// the vents it filed, which keep its id. A missing session is
	// ENotFound.
	DeleteSession(ctx context.Context, id string) error
	// Queued returns a session's queued messages in arrival order.
	Queued(ctx context.Context, sessionID string) ([]Queued, error)

	// InsertVent adds a vent, assigning its ID, Revision (1) and times.
	InsertVent(ctx context.Context, v Vent) (Vent, error)
	// Vent returns one vent.
	Vent(ctx context.Context, id int64) (Vent, error)
	// Vents returns vents newest first (highest ID first) with ID < before
	// (before <= 0: from the newest), at most limit of them.
	Vents(ctx context.Context, before int64, limit int) ([]Vent, error)
	// UpdateVent writes v if the stored revision equals v.Revision, and
	// returns the stored vent with its revision increased. A different
	// stored revision gives an *Error with code EStale.
	UpdateVent(ctx context.Context, v Vent) (Vent, error)
	// DeleteVent removes a vent if its stored revision equals revision
	// (EStale otherwise).
	DeleteVent(ctx context.Context, id int64, revision int64) error

	// Compaction returns a session's compaction state, ENotFound when it
	// has none (or the session is missing).
	Compaction(ctx context.Context, sessionID string) (Compaction, error)
	// SaveCompaction replaces the compaction state of c.SessionID whole, in
	// one transaction. A missing session is ENotFound. DeleteSession
	// removes the state with the session.
	SaveCompaction(ctx context.Context, c Compaction) error
	// AppendRequest adds a row to a session's request ledger, assigning
	// its ID.
	AppendRequest(ctx context.Context, row RequestRow) (RequestRow, error)
	// Requests returns a session's ledger rows with ID > after, oldest
	// first, at most limit of them (limit <= 0: all).
	Requests(ctx context.Context, sessionID string, after int64, limit int) ([]RequestRow, error)
	// LastRequest returns a session's newest ledger row of kind; ok is
	// false when it has none.
	LastRequest(ctx context.Context, sessionID string, kind RequestKind) (row RequestRow, ok bool, err error)
	// RequestTotals sums the usage of the rows with outcome ok, by session
	// id, for every session that has such rows.
	RequestTotals(ctx context.Context) (map[string]UsageTotals, error)

	// Close releases the store.
	Close() error
}

// Folder says what a path names, as Workspaces sees it.
type Folder int

// What a path can name.
const (
	// FolderMissing: nothing, or nothing that can be read.
	FolderMissing Folder = iota
	// FolderNotDir: something that is not a folder.
	FolderNotDir
	// FolderDir: a folder.
	FolderDir
	// FolderTooBroad: a folder no session may work in unless the user
	// allows it: /, the user's home, albedo's home, a folder inside it or
	// one holding it. A kernel may write its whole workspace, and a
	// workspace that broad holds the system or albedo's own files.
	FolderTooBroad
)

// Workspaces answers the domain's questions about workspace folders, so
// that the domain itself never touches the file system.
// adapters/localfs implements it on the local disk.
type Workspaces interface {
	// Folder says what the absolute path names.
	Folder(path string) Folder
}

// ItemQuery chooses a page of a transcript: the items with After < Seq <
// Before (zero bounds are open), at most Limit of them (Limit <= 0: all),
// the oldest of the range or, with Newest, the newest.
type ItemQuery struct {
	After, Before int64
	Limit         int
	Newest        bool
	// Images loads image data; without it an item's Image carries its
	// metadata only, Data nil.
	Images bool
	// NoResults leaves cell results out (Result nil): a model request
	// needs only the output text.
	NoResults bool
	// Display reads items to show them: a cell's result comes as the JSON
	// the store holds (Item.ResultJSON and TraceJSON, Result nil), a tool
	// output that has a result comes without its text, which the result
	// holds, and a model item (one with a Protocol) without its Raw. A
	// page shown to a client then carries results through without
	// decoding and encoding each again.
	Display bool
	// SeqOnly reads only each item's Seq and Kind, none of its values: for
	// a caller that needs to know where the transcript ends, which may be a
	// call with many MiB of arguments.
	SeqOnly bool
}

// Commit is one atomic write to the store.
type Commit struct {
	// Session, when not nil, is inserted or replaced whole. Its Revision is
	// stored as given.
	Session *Session
	// Expect is the revision of the stored session that Session replaces:
	// when it is not zero, the change lands only if the stored session has
	// that revision, and fails with EStale (nothing of it landing) when it
	// has another or is missing. Zero writes Session whatever is stored,
	// for a session's first write.
	Expect int64
	// SessionID names the session the items and queue changes belong to;
	// it defaults to Session.ID.
	SessionID string
	// Items are appended to the transcript; their Seq is assigned.
	Items []Item
	// Enqueue adds messages to the session's queue; their ID is assigned.
	Enqueue []Queued
	// Dequeue removes queued messages by ID.
	Dequeue []int64
	// Vent, when not nil, is written as UpdateVent writes it: only if the
	// stored revision equals Vent.Revision (EStale otherwise, and nothing
	// of the change lands).
	Vent *Vent
	// Compaction, when not nil, replaces the compaction state of the
	// session (SessionID) whole, as SaveCompaction does; a missing session
	// is ENotFound.
	Compaction *Compaction
	// Lease, when not nil, fences the change: it lands only if this lease
	// (owner and epoch) still holds the session and has not expired, by
	// the store's clock, checked in the change's own transaction; else it
	// fails with ELeaseLost and nothing of it lands. Only a store that
	// gives Leases takes it.
	Lease *Lease
}

// Committed is what a Commit assigned.
type Committed struct {
	Items    []Item
	Enqueued []Queued
	// Vent is the vent as stored, when the change wrote one.
	Vent *Vent
}

// Queued is a message waiting to join the next model request of a session.
type Queued struct {
	ID        int64
	SessionID string
	Text      string
	Source    string
	Notes     []string
	Image     *Image
	Timestamp int64
}

// Item is the user message a queued message becomes in the transcript.
func (q Queued) Item() Item {
	return Item{Kind: KindUser, Text: q.Text, Source: q.Source, Notes: q.Notes, Image: q.Image, Timestamp: q.Timestamp}
}

// Endpoint is everything needed to reach one model for one request.
type Endpoint struct {
	// Provider is the provider's name in the configuration.
	Provider string
	BaseURL  string
	APIKey   string
	Model    string
	Protocol Protocol
	// Effort is "", "low", "medium" or "high".
	Effort string
	// Reasoning says whether the model reasons, which makes Responses
	// requests ask for its encrypted reasoning and a summary even with no
	// effort set; nil leaves it to the provider adapter, which knows the
	// names of reasoning models.
	Reasoning *bool
	// ThinkTags makes "<think>…</think>" at the start of the answer text
	// reasoning, for local servers whose reasoning parser is off.
	ThinkTags bool
	// ReasoningContent sends a Chat Completions model its reasoning of the
	// current turn back, as the assistant messages' "reasoning_content"
	// (DeepSeek and Kimi thinking modes need it between tool calls).
	ReasoningContent bool
	// NoPromptCacheKey leaves out the prompt cache key (the session id)
	// that requests otherwise carry.
	NoPromptCacheKey bool
	// MaxReplyBytes lowers the provider adapter's cap on one reply item
	// or stream event; 0 keeps the adapter's default.
	MaxReplyBytes int
}

// Tool describes a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
}

// ModelRequest is one request to a model provider.
type ModelRequest struct {
	Endpoint     Endpoint
	Instructions string
	// Input is the transcript projected into Endpoint.Protocol: the
	// "messages" array of Chat Completions or the "input" array of Responses.
	// Each element is one valid JSON value; providers send them as they are
	// and never change them (the service may hand the same elements to
	// later requests).
	Input []json.RawMessage
	Tools []Tool
	// SessionID names the session the request is for; providers use it as
	// the prompt cache key, so that the requests of one session share a
	// cache.
	SessionID string
	// OnAttempt, when not nil, is called once after each sending of the
	// request ends, retries included, on the caller's goroutine. A
	// provider that never calls it is recorded as having made one attempt.
	OnAttempt func(Attempt)
}

// DeltaKind says what a streamed fragment belongs to: one of the API's
// delta kinds (wire.DeltaText and the rest), which a delta event's Kind
// shows.
type DeltaKind string

// Streamed fragment kinds, as the API names them.
const (
	DeltaText      DeltaKind = wire.DeltaText
	DeltaReasoning DeltaKind = wire.DeltaReasoning
	DeltaToolCall  DeltaKind = wire.DeltaToolCall
	// DeltaRetry is no part of the reply: the provider failed transiently
	// and the request is about to be sent again; the text says when and why.
	DeltaRetry DeltaKind = wire.DeltaRetry
)

// Delta is a fragment of a model reply as it streams.
type Delta struct {
	Kind DeltaKind
	Text string
}

// Usage counts the tokens of one model request as its provider reported
// them, as status events show it (wire.Usage documents how both protocols
// map onto it).
type Usage = wire.Usage

// ModelReply is a finished model reply: its items in output order
// (reasoning, assistant text, tool calls), each with Kind, Text or call
// fields, Protocol, Raw and Flags set. A refusal is assistant text flagged
// FlagRefusal; text cut at the output limit is flagged FlagTruncated.
type ModelReply struct {
	Items []Item
	Usage Usage
}

// Provider streams model replies. Implementations retry transient failures
// themselves and return an error wrapping an *Error for the rest; when the
// reply failed after text or reasoning streamed, the returned reply holds
// that much, flagged FlagPartial, beside the error (never a tool call). A
// cancelled ctx ends the request at once and returns ctx.Err().
type Provider interface {
	Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelReply, error)
}

// Cell is one Python cell to run in a session's kernel.
type Cell struct {
	SessionID string
	Workspace string
	Code      string
	Timeout   time.Duration
	// Call is the Seq of the tool call the cell answers; 0 for none.
	Call int64
	// Output, when not nil, receives what the cell prints while it runs:
	// stdout and stderr in the order written, coalesced to a call every
	// 100ms at most, from one goroutine at a time and never after Run
	// returns. Concatenated, the texts are the cell's output, even where
	// the result's Output is cut (a kernel may stop at a cap of its own and
	// say so in the last text).
	Output func(text string)
	// HostCalls declare the calls the cell may make back into albedo, for
	// the kernel to offer them to the cell under their names.
	HostCalls []HostCallDecl
	// Host answers the cell's host calls for its session: the arguments
	// as a JSON object in, the JSON result out; an error's message is for
	// the cell to raise. Nil when the cell may make none.
	Host func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
}

// Kernel runs Python cells in one persistent interpreter per session.
// Cancelling ctx interrupts the running cell; the result then has status
// CellInterrupted. A kernel that crashed or was stopped is started afresh on
// the next cell, and that result is marked Fresh; the kernel adds no note of
// it, since the domain alone decides what the model is told.
type Kernel interface {
	Run(ctx context.Context, cell Cell) (CellResult, error)
	// Stop ends a session's kernel, if any; its globals are gone.
	Stop(ctx context.Context, sessionID string) error
	// Close ends every kernel.
	Close(ctx context.Context) error
	// RunningJobs counts the background jobs still running in a session's
	// kernel: a kernel with jobs is not stopped for being idle.
	RunningJobs(sessionID string) int
}

// KernelWarmer is a Kernel that can start a session's kernel ahead of its
// first cell, so that the cell does not wait for the interpreter to start.
// The service warms the kernel of a session that has none when a turn
// begins, while the model answers.
type KernelWarmer interface {
	// Warm starts the session's kernel in workspace in the background
	// and returns at once; it does nothing when the session has a kernel
	// or one is starting. A cell that comes while the warm start is in
	// progress waits for it and runs in the kernel it made. A warmed
	// kernel that has run no cell is not an earlier kernel: the first cell
	// in it is Fresh only if a kernel of the session ran cells before.
	// Stop and Close end a warm start in progress too, and the kernel it
	// made. A failed warm start is only logged: the next cell starts a
	// kernel as if none had been warmed. The start ends early when ctx
	// is done.
	Warm(ctx context.Context, sessionID, workspace string)
}

// OutputSpool keeps what running cells print as it comes, bounded, so that
// a cell cut short by a crash of albedo keeps its output. A cell is named
// by its session and the Seq of its tool call.
type OutputSpool interface {
	// Append adds text to the cell's spooled output.
	Append(ctx context.Context, sessionID string, call int64, text string) error
	// Read returns the cell's spooled output, "" when there is none; what
	// did not fit is replaced by a line saying how much was cut.
	Read(ctx context.Context, sessionID string, call int64) (string, error)
	// Remove forgets the cell's spooled output, if any.
	Remove(ctx context.Context, sessionID string, call int64) error
	// RemoveSession forgets the spooled output of every cell of a
	// session, as when the session is deleted.
	RemoveSession(ctx context.Context, sessionID string) error
	// Flush makes what the session's cells printed so far readable by
	// the next process to run the session, before this one gives its
	// turn up. A spool that keeps each Append at once does nothing.
	Flush(ctx context.Context, sessionID string) error
}

// JobEnd says how a background job of a session's kernel ended.
type JobEnd struct {
	// ID is the job's number in its kernel (jobs()[ID]).
	ID int
	// ExitCode is the job's exit status; minus the signal's number when a
	// signal ended it.
	ExitCode int
	Duration time.Duration
}

// HostFunc answers a host call that a running cell makes back into albedo.
// args is the JSON the cell sent; the result is marshalled to JSON for it.
// An error's message is raised in Python as an exception.
type HostFunc func(ctx context.Context, sessionID string, args json.RawMessage) (any, error)

// ProviderConfig is one configured model provider.
type ProviderConfig struct {
	Name     string
	BaseURL  string
	APIKey   string
	Model    string
	Protocol Protocol
	// Reasoning, ThinkTags, ReasoningContent, NoPromptCacheKey and
	// MaxReplyBytes are copied to the Endpoint; see there.
	Reasoning        *bool
	ThinkTags        bool
	ReasoningContent bool
	NoPromptCacheKey bool
	MaxReplyBytes    int
	// ContextWindow is the model's context window in tokens as the
	// configuration says it ("contextWindow"); 0 when it says nothing
	// usable.
	ContextWindow int64
	// ContextWindowProblem says why a "contextWindow" the configuration
	// has was not usable; the provider works all the same.
	ContextWindowProblem string
}

// Config is the user's provider configuration.
type Config struct {
	// Active names the provider new sessions bind to.
	Active    string
	Providers map[string]ProviderConfig
}

// ConfigSource reads and updates the user's configuration. Load is called
// for every turn, so implementations should be cheap when nothing changed.
type ConfigSource interface {
	Load(ctx context.Context) (Config, error)
	// SetActiveModel makes provider the active one and model its default
	// model, keeping everything else in the configuration.
	SetActiveModel(ctx context.Context, provider, model string) error
	// SaveProvider adds or replaces a provider, and makes it active when
	// activate is true.
	SaveProvider(ctx context.Context, p ProviderConfig, activate bool) error
}

// Clock tells the time.
type Clock interface {
	Now() time.Time
}
