package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// MaxMessageBytes caps the text of one user message.
const MaxMessageBytes = 1 << 20

// Send gives a session a user message. An idle session starts a turn; a
// busy one queues the message for its next model request, and queued is
// true. A session whose turn was running when albedo stopped resumes that
// turn first, as Recover would, and the message is queued for it. Nothing
// is recorded when the message is refused.
func (s *Service) Send(ctx context.Context, id string, msg albedo.Message) (queued bool, err error) {
	if strings.TrimSpace(msg.Text) == "" {
		return false, albedo.Errorf(albedo.EInvalid, "message content must not be empty")
	}
	if len(msg.Text) > MaxMessageBytes {
		return false, albedo.Errorf(albedo.EInvalid, "message content is larger than %d bytes", MaxMessageBytes)
	}
	var img *albedo.Image
	if msg.Image != nil {
		if img, err = albedo.DecodeImage(*msg.Image); err != nil {
			return false, err
		}
	}
	return withRow(ctx, s, id, func(st *sessionState) (bool, error) {
		if err := s.recordEnd(ctx, st, id); err != nil {
			return false, err
		}
		sess, err := s.store.Session(ctx, id)
		if err != nil {
			return false, err
		}
		if err := s.checkWorkspaceExists(sess.Workspace); err != nil {
			return false, err
		}
		q := albedo.Queued{SessionID: id, Text: msg.Text, Image: img, Timestamp: s.now()}
		return s.route(ctx, st, id, sess, q, func(x *albedo.Session) { x.Title = Title(msg.Text) })
	})
}

// checkWorkspaceExists refuses a turn whose workspace folder is gone.
func (s *Service) checkWorkspaceExists(path string) error {
	if s.workspaces.Folder(path) == albedo.FolderDir {
		return nil
	}
	return &albedo.Error{
		Code:    albedo.EWorkspaceMissing,
		Message: fmt.Sprintf("workspace %s is missing: move the session to its new path first", path),
		Details: map[string]any{"workspace": path},
	}
}

// Interrupt stops a session's running turn and waits until it has ended,
// unless the turn was waiting on the store when interrupted: then it
// returns at once, and the turn records its end, interrupted, once the
// store lets it. Interrupting an idle session does nothing.
func (s *Service) Interrupt(ctx context.Context, id string) error {
	if _, err := s.store.Session(ctx, id); err != nil {
		return err
	}
	r := s.state(id).running()
	if r == nil && s.changes != nil {
		// The turn may run on another daemon sharing the store.
		return s.interruptElsewhere(ctx, id)
	}
	if r == nil {
		return nil
	}
	if r.interrupt() {
		return nil
	}
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait blocks until the session runs no turn, or ctx ends. A turn that
// continues because messages were queued is waited for as well.
func (s *Service) Wait(ctx context.Context, id string) error {
	if _, err := s.store.Session(ctx, id); err != nil {
		return err
	}
	st := s.state(id)
	for {
		r := st.running()
		if r == nil {
			return nil
		}
		select {
		case <-r.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
