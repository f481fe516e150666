package engine

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// DeleteSession removes an idle session and everything kept for it: its
// transcript, its queue, its kernel, its caches. Its open subscriptions end
// with a deleted event. Vents it filed keep its id. A running session is
// EBusy.
func (s *Service) DeleteSession(ctx context.Context, id string) error {
	return s.inRow(ctx, id, func(st *sessionState) error {
		if st.running() != nil {
			return albedo.Errorf(albedo.EBusy, "session %s is running a turn: interrupt it first", id)
		}
		if err := s.store.DeleteSession(ctx, id); err != nil {
			return err
		}
		st.deleted.Store(true)
		st.hub.closeAll(albedo.Event{Type: EventDeleted})
		st.cache.forget()
		s.mu.Lock()
		delete(s.sessions, id)
		s.recent = slices.DeleteFunc(s.recent, func(x string) bool { return x == id })
		s.mu.Unlock()
		if err := s.kernel.Stop(context.WithoutCancel(ctx), id); err != nil {
			s.log.Warn("stop the kernel of a deleted session", "session", id, "err", err)
		}
		// A cell cut short by a crash leaves its output spooled until the
		// session resumes; a deleted session never does.
		if err := s.spool.RemoveSession(context.WithoutCancel(ctx), id); err != nil {
			s.log.Warn("remove the spooled output of a deleted session", "session", id, "err", err)
		}
		return nil
	})
}

// Configure applies a change of configuration if revision is the
// session's current revision.
func (s *Service) Configure(ctx context.Context, id string, revision int64, change albedo.Configuration) (albedo.Session, error) {
	var name string
	if change.Name != nil {
		name = strings.TrimSpace(*change.Name)
		if len([]rune(name)) > 100 {
			return albedo.Session{}, albedo.Errorf(albedo.EInvalid, "a session name has at most 100 characters")
		}
	}
	return s.updateSession(ctx, id, func(sess *albedo.Session) error {
		if revision != sess.Revision {
			return albedo.Errorf(albedo.EStale, "session %s changed since revision %d (now %d)", id, revision, sess.Revision)
		}
		if change.Name != nil {
			sess.Name = name
		}
		if change.Archived != nil {
			sess.Archived = *change.Archived
		}
		return nil
	})
}

// Listing filters.
const (
	// ArchivedNo lists the sessions that are not archived (the default).
	ArchivedNo albedo.Archived = ""
	// ArchivedOnly lists archived sessions only.
	ArchivedOnly albedo.Archived = "true"
	// ArchivedAll lists every session.
	ArchivedAll albedo.Archived = "all"
)

// SessionFilter chooses sessions to list.
type SessionFilter struct {
	// Query matches a case-insensitive substring of the title or the
	// name, or a prefix of the id; empty matches every session.
	Query string
	// Workspace, when set, matches that exact path.
	Workspace string
	Archived  albedo.Archived
	// Limit bounds the page; zero or less: no bound.
	Limit int
	// Cursor continues a listing after the page that gave it.
	Cursor string
}

// FindSessions returns the sessions the filter matches, most recently
// updated first, and the cursor of the next page ("" on the last).
func (s *Service) FindSessions(ctx context.Context, f SessionFilter) ([]albedo.Session, string, error) {
	var after *albedo.Session
	if f.Cursor != "" {
		c, err := parseCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &c
	}
	all, err := s.store.Sessions(ctx)
	if err != nil {
		return nil, "", err
	}
	query := strings.ToLower(strings.TrimSpace(f.Query))
	out := make([]albedo.Session, 0, min(len(all), max(f.Limit, 0)+1))
	for _, sess := range all {
		if after != nil && !listedAfter(sess, *after) || !f.matches(sess, query) {
			continue
		}
		if f.Limit > 0 && len(out) == f.Limit {
			next := cursorOf(out[len(out)-1])
			out, err := s.withUsage(ctx, out)
			return out, next, err
		}
		out = append(out, sess)
	}
	out, err = s.withUsage(ctx, out)
	return out, "", err
}

// matches reports whether the filter keeps sess; query is lower-case.
func (f SessionFilter) matches(sess albedo.Session, query string) bool {
	switch f.Archived {
	case ArchivedOnly:
		if !sess.Archived {
			return false
		}
	case ArchivedAll:
	default:
		if sess.Archived {
			return false
		}
	}
	if f.Workspace != "" && sess.Workspace != f.Workspace {
		return false
	}
	if query == "" {
		return true
	}
	return strings.HasPrefix(sess.ID, query) ||
		strings.Contains(strings.ToLower(sess.Title), query) ||
		strings.Contains(strings.ToLower(sess.Name), query)
}

// listedAfter reports whether sess comes after c in listing order: most
// recently updated first, then by id.
func listedAfter(sess, c albedo.Session) bool {
	if n := sess.UpdatedAt.Compare(c.UpdatedAt); n != 0 {
		return n < 0
	}
	return sess.ID > c.ID
}

// cursorOf is the cursor naming a session's place in the listing.
func cursorOf(sess albedo.Session) string {
	return strconv.FormatInt(sess.UpdatedAt.UnixNano(), 10) + "." + sess.ID
}

// parseCursor reads a cursor back into the place it names.
func parseCursor(cursor string) (albedo.Session, error) {
	at, id, ok := strings.Cut(cursor, ".")
	nanos, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || id == "" {
		return albedo.Session{}, albedo.Errorf(albedo.EInvalid, "cursor %q is not one albedo gave out", cursor)
	}
	return albedo.Session{ID: id, UpdatedAt: time.Unix(0, nanos)}, nil
}
