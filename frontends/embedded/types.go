package embedded

import "github.com/albedo-agent/albedo/frontends/client"

// The types of the API are the HTTP client's, so that values look the same
// whether they came from an embedded albedo or from a daemon.
type (
	// Session is a session: its workspace, provider binding and title.
	Session = client.Session
	// SessionDetail is a session with its latest events and glances.
	SessionDetail = client.SessionDetail
	// Glance is one item an extension shows in a session's sidebar.
	Glance = client.Glance
	// Config is a session's editable configuration and its ETag.
	Config = client.Config
	// Event is one thing a session shows: a transcript item or a live
	// signal such as a streamed fragment.
	Event = client.Event
	// Image is a picture attached to a message, base64-encoded.
	Image = client.Image
	// HistoryItem is one item of a session's transcript.
	HistoryItem = client.HistoryItem
	// TreePage is one page of a session's checkpoints.
	TreePage = client.TreePage
	// TreeItem is one checkpoint a fork can start from.
	TreeItem = client.TreeItem
	// ModelChoice is what a session is bound to after SwitchModel.
	ModelChoice = client.ModelChoice
	// Vent is a complaint a model filed in the ledger.
	Vent = client.Vent
	// VentPage is one page of the ledger, newest first.
	VentPage = client.VentPage
	// VentReply is the outcome of a reply to a vent.
	VentReply = client.VentReply
)

// ErrStreamEnded says a session's event stream ended because albedo
// stopped or the reader fell too far behind; subscribing again picks up
// where things are. It is the client's error of the same name.
var ErrStreamEnded = client.ErrStreamEnded

// Event types (Event.Type), as the client names them. User, message,
// thinking, tool_call, tool, error and turn events are durable: they carry
// the Seq of a transcript item. Delta, queued and status events exist only
// on a live stream.
const (
	EventUser     = client.EventUser
	EventMessage  = client.EventMessage
	EventThinking = client.EventThinking
	EventToolCall = client.EventToolCall
	EventTool     = client.EventTool
	EventError    = client.EventError
	EventTurn     = client.EventTurn
	EventDelta    = client.EventDelta
	EventQueued   = client.EventQueued
	EventStatus   = client.EventStatus
)

// Turn marker statuses (Event.Status of a turn event).
const (
	TurnFinished    = client.TurnFinished
	TurnInterrupted = client.TurnInterrupted
	TurnFailed      = client.TurnFailed
)
