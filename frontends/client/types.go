package client

import "github.com/albedo-agent/albedo/albedo/wire"

// The bodies the daemon answers with, under the client's names: they are
// the API's own types (albedo/wire).
type (
	// Session is a session as the daemon shows it.
	Session = wire.Session
	// Glance is one item an extension contributes to a session's sidebar.
	Glance = wire.Glance
	// SessionDetail is a session with its latest events, as GET
	// /sessions/{id} returns it.
	SessionDetail = wire.SessionDetail
	// Config is the editable configuration of a session.
	Config = wire.Config
	// Image is a picture attached to a message.
	Image = wire.Image
	// HistoryItem is one transcript item as GET /sessions/{id}/history
	// shows it.
	HistoryItem = wire.HistoryItem
	// ToolRef names the tool of a call or result.
	ToolRef = wire.ToolRef
	// ContentPart is one part of a tool result.
	ContentPart = wire.ContentPart
	// TreeItem is one checkpoint of a transcript.
	TreeItem = wire.TreeItem
	// TreePage is one page of a session's checkpoints.
	TreePage = wire.TreePage
	// ModelChoice is what a session is bound to after /model.
	ModelChoice = wire.ModelChoice
	// Vent is a complaint a model filed in the global ledger.
	Vent = wire.Vent
	// VentPage is one page of the ledger, newest first.
	VentPage = wire.VentPage
	// VentReply is the outcome of a reply.
	VentReply = wire.VentReply
	// Health is the answer of GET /health.
	Health = wire.Health
	// UsageTotals sums a session's successful model requests.
	UsageTotals = wire.UsageTotals
	// RequestRow is one attempt at a model request.
	RequestRow = wire.RequestRow
	// RequestPage is a page of a session's request ledger.
	RequestPage = wire.RequestPage
	// InstructionUse is what a request carried of an instruction file.
	InstructionUse = wire.InstructionUse
	// Context is how full a session's model context is.
	Context = wire.Context
)

// Vent statuses.
const (
	VentOpen         = wire.VentOpen
	VentAcknowledged = wire.VentAcknowledged
	VentResolved     = wire.VentResolved
	VentDismissed    = wire.VentDismissed
)

// ErrStreamEnded says the daemon closed a session's event stream, as it
// does when it shuts down. Subscribing again picks up where things are.
var ErrStreamEnded = wire.ErrStreamEnded

// The client is an Agent.
var _ wire.Agent = (*Client)(nil)
