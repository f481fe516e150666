package embedded

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// Send gives a session a user message, with an optional image whose
// declared type, size and byte count must match its data. An idle session
// starts a turn; a busy one queues the message for its next model request,
// and queued is true. Send returns as soon as the message is stored; Wait
// for the turn to end.
func (a *Albedo) Send(ctx context.Context, id, text string, img *Image) (queued bool, err error) {
	msg := albedo.Message{Text: text}
	if img != nil {
		msg.Image = &albedo.ImageInput{MimeType: img.MimeType, Data: img.Data, Width: img.Width, Height: img.Height, Bytes: img.Bytes}
	}
	queued, err = a.svc.Send(ctx, id, msg)
	if err != nil {
		return false, fmt.Errorf("send to session %s: %w", id, err)
	}
	return queued, nil
}

// Status reports whether a session is running a turn.
func (a *Albedo) Status(ctx context.Context, id string) (running bool, err error) {
	running, err = a.svc.Running(ctx, id)
	if err != nil {
		return false, fmt.Errorf("get status of session %s: %w", id, err)
	}
	return running, nil
}

// Wait blocks until a session runs no turn, or ctx ends. A turn that goes
// on because messages were queued is waited for as well.
func (a *Albedo) Wait(ctx context.Context, id string) error {
	if err := a.svc.Wait(ctx, id); err != nil {
		return fmt.Errorf("wait for session %s: %w", id, err)
	}
	return nil
}

// Interrupt stops a session's running turn and returns once it has ended.
// Interrupting an idle session does nothing.
func (a *Albedo) Interrupt(ctx context.Context, id string) error {
	if err := a.svc.Interrupt(ctx, id); err != nil {
		return fmt.Errorf("interrupt session %s: %w", id, err)
	}
	return nil
}
