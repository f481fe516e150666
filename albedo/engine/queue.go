package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/albedo-agent/albedo/albedo"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// DropQueued removes a message still waiting in a session's queue, and
// tells the session's streams with an unqueued event.
func (s *Service) DropQueued(ctx context.Context, id string, queueID int64) error {
	return s.inRow(ctx, id, func(st *sessionState) error {
		queued, err := s.store.Queued(ctx, id)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(queued, func(q albedo.Queued) bool { return q.ID == queueID }) {
			return albedo.Errorf(albedo.ENotFound, "session %s has no queued message %d (it may have joined a request already)", id, queueID)
		}
		if _, err := s.store.Commit(ctx, albedo.Commit{SessionID: id, Dequeue: []int64{queueID}}); err != nil {
			return fmt.Errorf("drop queued message %d of session %s: %w", queueID, id, err)
		}
		st.hub.publish(albedo.Event{Type: wire.EventUnqueued, QueueID: queueID})
		return nil
	})
}

// SendQueued starts a turn on the messages waiting in an idle session's
// queue (those an interrupted or failed turn left). A busy session takes
// them at its next model request anyway: started is then false.
func (s *Service) SendQueued(ctx context.Context, id string) (started bool, err error) {
	return withRow(ctx, s, id, func(st *sessionState) (bool, error) {
		if st.running() != nil {
			return false, nil
		}
		queued, err := s.store.Queued(ctx, id)
		if err != nil {
			return false, err
		}
		if len(queued) == 0 {
			return false, albedo.Errorf(albedo.EInvalid, "session %s has no queued message to send", id)
		}
		sess, err := s.store.Session(ctx, id)
		if err != nil {
			return false, err
		}
		if err := s.checkWorkspaceExists(sess.Workspace); err != nil {
			return false, err
		}
		if owned, err := s.own(ctx, st, id); err != nil || !owned {
			return false, err
		}
		sess.Stage = albedo.StageRunning
		expect := s.touch(&sess)
		if _, err := s.store.Commit(ctx, albedo.Commit{Session: &sess, Expect: expect}); err != nil {
			s.release(ctx, id)
			return false, fmt.Errorf("start session %s on its queue: %w", id, err)
		}
		s.startTurn(st, sess)
		return true, nil
	})
}
