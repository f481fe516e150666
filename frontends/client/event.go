package client

import "github.com/albedo-agent/albedo/albedo/wire"

// The client's types are the API's own (albedo/wire), under the names
// programs have used.
type (
	// Event is one thing a session shows: a transcript item or a live
	// signal.
	Event = wire.Event
	// ImageMeta describes an attached image: never its data.
	ImageMeta = wire.ImageMeta
	// Usage counts the tokens of one model request.
	Usage = wire.Usage
	// CellResult is what a Python cell produced.
	CellResult = wire.CellResult
	// Trace records the files a cell touched.
	Trace = wire.Trace
	// Activity is one file a cell opened.
	Activity = wire.Activity
	// Change is one file a cell created, modified or deleted.
	Change = wire.Change
)

// Event types (Event.Type); see wire.EventUser and the rest.
const (
	EventUser     = wire.EventUser
	EventMessage  = wire.EventMessage
	EventThinking = wire.EventThinking
	EventToolCall = wire.EventToolCall
	EventTool     = wire.EventTool
	EventError    = wire.EventError
	EventTurn     = wire.EventTurn
	EventNote     = wire.EventNote
	// EventCompaction says the conversation's start was summarised.
	EventCompaction = wire.EventCompaction
	EventDelta      = wire.EventDelta
	EventUnqueued   = wire.EventUnqueued
	EventQueued     = wire.EventQueued
	EventStatus     = wire.EventStatus
	// EventOverflow ends a stream whose reader fell too far behind:
	// subscribe again with SubscribeOptions.After to resume.
	EventOverflow = wire.EventOverflow
	// EventDeleted ends the stream of a session that was deleted.
	EventDeleted = wire.EventDeleted
	// EventOutput carries what a running cell printed.
	EventOutput = wire.EventOutput
)

// Delta kinds (Event.Kind of a delta event).
const (
	DeltaText      = wire.DeltaText
	DeltaReasoning = wire.DeltaReasoning
	DeltaToolCall  = wire.DeltaToolCall
	DeltaRetry     = wire.DeltaRetry
)

// Turn marker statuses (Event.Status of a turn event).
const (
	TurnFinished    = wire.TurnFinished
	TurnInterrupted = wire.TurnInterrupted
	TurnFailed      = wire.TurnFailed
)

// Tokens returns n, or 0 when n is nil (not reported); see wire.Tokens.
func Tokens(n *int64) int64 { return wire.Tokens(n) }
