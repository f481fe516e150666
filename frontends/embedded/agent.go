package embedded

import "github.com/albedo-agent/albedo/albedo/wire"

// The Agent interface is the API's (wire.Agent): *Albedo implements it,
// and so does the daemon's HTTP client in frontends/client, so a program
// written against Agent moves between the two by changing the one call
// that makes it.
type (
	// Agent is albedo as a program drives it, in process or through a
	// daemon.
	Agent = wire.Agent
	// SessionAPI manages sessions.
	SessionAPI = wire.SessionAPI
	// TurnAPI talks to a session: messages, turns and their events.
	TurnAPI = wire.TurnAPI
	// VentAPI reads and triages the vent ledger.
	VentAPI = wire.VentAPI
)

var _ Agent = (*Albedo)(nil)

// ErrorCode returns the application error code err carries, whether it
// came from an embedded albedo or from a daemon: one of the albedo.E*
// constants such as albedo.EBusy or albedo.ENotFound (the API's wire.Code*
// values). It returns "" for nil and for errors that carry no code, such
// as a cancelled context.
func ErrorCode(err error) string { return wire.ErrorCode(err) }
