package embedded

import (
	"context"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Send gives a session a user message, with an optional image whose
// declared type, size and byte count must match its data. An idle session
// starts a turn; a busy one queues the message for its next model request,
// and queued is true. Send returns as soon as the message is stored; Wait
// for the turn to end.
func (a *Albedo) Send(ctx context.Context, id, text string, img *wire.Image) (queued bool, err error) {
	sent, err := a.app.Send(ctx, id, text, img)
	return sent.Queued, failed(err, "send to session %s", id)
}

// Status reports whether a session is running a turn.
func (a *Albedo) Status(ctx context.Context, id string) (running bool, err error) {
	st, err := a.app.Status(ctx, id)
	return st.Running, failed(err, "get status of session %s", id)
}

// Wait blocks until a session runs no turn, or ctx ends. A turn that goes
// on because messages were queued is waited for as well.
func (a *Albedo) Wait(ctx context.Context, id string) error {
	return failed(a.app.Service().Wait(ctx, id), "wait for session %s", id)
}

// DropQueued removes a message still waiting in a session's queue.
func (a *Albedo) DropQueued(ctx context.Context, id string, queueID int64) error {
	return failed(a.app.Service().DropQueued(ctx, id, queueID), "drop queued message %d of session %s", queueID, id)
}

// SendQueued starts a turn on the messages waiting in an idle session's
// queue; started is false when a turn already runs.
func (a *Albedo) SendQueued(ctx context.Context, id string) (started bool, err error) {
	st, err := a.app.SendQueued(ctx, id)
	return st.Running, failed(err, "send the queue of session %s", id)
}

// Interrupt stops a session's running turn and returns once it has ended.
// Interrupting an idle session does nothing.
func (a *Albedo) Interrupt(ctx context.Context, id string) error {
	_, err := a.app.Interrupt(ctx, id)
	return failed(err, "interrupt session %s", id)
}
