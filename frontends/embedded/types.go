package embedded

import "github.com/albedo-agent/albedo/albedo/wire"

// The types of the API are its own (albedo/wire), the very types the HTTP
// client uses, so that values look the same whether they came from an
// embedded albedo or from a daemon.
type (
	// Session is a session: its workspace, provider binding and title.
	Session = wire.Session
	// SessionDetail is a session with its latest events and glances.
	SessionDetail = wire.SessionDetail
	// Glance is one item an extension shows in a session's sidebar.
	Glance = wire.Glance
	// Config is a session's editable configuration and its ETag.
	Config = wire.Config
	// Event is one thing a session shows: a transcript item or a live
	// signal such as a streamed fragment. Its types are wire.EventUser
	// and the rest.
	Event = wire.Event
	// Image is a picture attached to a message, base64-encoded.
	Image = wire.Image
	// HistoryItem is one item of a session's transcript.
	HistoryItem = wire.HistoryItem
	// TreePage is one page of a session's checkpoints.
	TreePage = wire.TreePage
	// TreeItem is one checkpoint a fork can start from.
	TreeItem = wire.TreeItem
	// ModelChoice is what a session is bound to after SwitchModel.
	ModelChoice = wire.ModelChoice
	// Vent is a complaint a model filed in the ledger.
	Vent = wire.Vent
	// VentPage is one page of the ledger, newest first.
	VentPage = wire.VentPage
	// VentReply is the outcome of a reply to a vent.
	VentReply = wire.VentReply
	// RequestPage is one page of a session's request ledger, oldest
	// first.
	RequestPage = wire.RequestPage
	// RequestRow is one attempt at a model request.
	RequestRow = wire.RequestRow
	// Context is how full a session's model context is.
	Context = wire.Context
)

// ErrStreamEnded says a session's event stream ended because albedo
// stopped or the reader fell too far behind; subscribing again picks up
// where things are. It is the client's error of the same name.
var ErrStreamEnded = wire.ErrStreamEnded
