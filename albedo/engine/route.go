package engine

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// routeAttempts bounds how often route reads the session again after its
// row changed under it (another process queued a message, started or
// ended a turn meanwhile).
const routeAttempts = 8

// route gives session id the message q, read as sess and changed by edit
// (a title, say). An idle session whose lease this process takes starts
// a turn on it; a session whose turn runs, here or on another process
// sharing the store, has it queued, and the other processes are woken
// (Changes.Wake) so that the one running the turn, or, should that turn
// have just ended, any that takes the lease, delivers it.
//
// Every write is checked against the session's revision: a message queued
// by another process and the stored start or end of a turn are ordered by
// the row, and route reads it again when it changed. So of two processes
// racing for an idle session, one takes the lease and starts the turn,
// and the other's message joins it. The caller holds st.row.
func (s *Service) route(ctx context.Context, st *sessionState, id string, sess albedo.Session, q albedo.Queued, edit func(*albedo.Session)) (queued bool, err error) {
	for attempt := 1; ; attempt++ {
		queued, err = s.routeOnce(ctx, st, id, sess, q, edit)
		if albedo.ErrorCode(err) != albedo.EStale || attempt == routeAttempts {
			break
		}
		if sess, err = s.store.Session(ctx, id); err != nil {
			break
		}
	}
	if err != nil && st.running() == nil {
		s.release(ctx, id)
	}
	return queued, err
}

// routeOnce is one attempt of route; an EStale error means the row
// changed since sess was read. A lease it took is kept for the next
// attempt.
func (s *Service) routeOnce(ctx context.Context, st *sessionState, id string, sess albedo.Session, q albedo.Queued, edit func(*albedo.Session)) (queued bool, err error) {
	if s.isClosed() {
		return false, albedo.Errorf(albedo.EConflict, "albedo is shutting down")
	}
	// Without a lease (another process sharing the store runs the
	// session), the message is only queued: its turn takes it.
	owned := st.running() != nil
	if !owned {
		if owned, err = s.own(ctx, st, id); err != nil {
			return false, err
		}
	}
	if owned && st.running() == nil && sess.Stage == albedo.StageRunning {
		// The turn died with its daemon and no one resumed it yet:
		// resume it now, and the message joins it.
		if sess, err = s.resumeLocked(ctx, st, sess); err != nil {
			return false, err
		}
	}
	if edit != nil {
		edit(&sess)
	}
	queued = !owned || st.running() != nil
	if !queued {
		sess.Stage = albedo.StageRunning
	}
	expect := s.touch(&sess)
	done, err := s.store.Commit(ctx, albedo.Commit{Session: &sess, Expect: expect, Enqueue: []albedo.Queued{q}})
	if err != nil {
		return false, fmt.Errorf("queue message for session %s: %w", id, err)
	}
	if !queued {
		s.startTurn(st, sess)
		return false, nil
	}
	st.hub.publish(queuedEvent(done.Enqueued[0]))
	if !owned && s.changes != nil {
		if err := s.changes.Wake(ctx, id); err != nil {
			// The message is stored: the next message or restart takes it.
			s.log.Warn("wake the daemon running a session", "session", id, "err", err)
		}
	}
	return true, nil
}

// heardWake starts a turn on the messages another process queued for a
// session that no turn runs: the turn that ran when they were queued
// ended without them, or it is the lease's next holder's to start. It
// does nothing when a turn runs here (it takes them), when another
// process holds the lease (it was woken too), or when nothing is queued.
func (s *Service) heardWake(id string) {
	if s.leases == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteInterruptWait)
	defer cancel()
	st := s.state(id)
	st.row.Lock()
	defer st.row.Unlock()
	if st.running() != nil || s.isClosed() {
		return
	}
	queued, err := s.store.Queued(ctx, id)
	if err != nil || len(queued) == 0 {
		return
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil || sess.Stage != albedo.StageIdle || s.workspaces.Folder(sess.Workspace) != albedo.FolderDir {
		return
	}
	owned, err := s.own(ctx, st, id)
	if err != nil || !owned {
		return
	}
	// Read again under the lease: the previous holder may have started
	// the turn, or delivered the messages, before it let go.
	queued, err = s.store.Queued(ctx, id)
	if err == nil && len(queued) > 0 {
		sess, err = s.store.Session(ctx, id)
	}
	if err != nil || len(queued) == 0 || sess.Stage != albedo.StageIdle {
		s.release(ctx, id)
		return
	}
	sess.Stage = albedo.StageRunning
	expect := s.touch(&sess)
	if _, err := s.store.Commit(ctx, albedo.Commit{Session: &sess, Expect: expect}); err != nil {
		s.log.Warn("start a turn on messages another daemon queued", "session", id, "err", err)
		s.release(ctx, id)
		return
	}
	s.log.Info("started a turn on messages another daemon queued", "session", id)
	s.startTurn(st, sess)
}
