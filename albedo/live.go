package albedo

import "context"

// LiveEvent is a live event (a delta, a running cell's output, a status,
// queued or unqueued event) that one process sharing the store published
// for a session's subscribers on the others.
type LiveEvent struct {
	SessionID string
	// Stamp is the Seq of the newest durable event the publishing process
	// had published for the session before this one: a delta or an
	// output stamped below what a subscriber already shows belongs to an
	// item it shows whole.
	Stamp int64
	Event Event
	// Gap, with no session and no event, says that live events of any
	// session may have been lost (a reconnect, a batch pruned before it
	// was read). Durable events are never lost this way.
	Gap bool
}

// LiveEvents carries the live events of the turns each process runs to
// the subscribers of the other processes sharing the store, while the
// turns run. A store that one process alone uses needs none.
type LiveEvents interface {
	// Publish hands on one of this process's live events. It never
	// blocks: events leave in batches, in the order given.
	Publish(sessionID string, stamp int64, ev Event)
	// Run sends the batches of what Publish was given and calls fn, from
	// one goroutine, with what the other processes published, in their
	// order, and with a gap where some may have been lost, until ctx
	// ends; what was published before then is sent before it returns.
	Run(ctx context.Context, fn func(LiveEvent))
}
