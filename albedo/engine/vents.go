package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// Notification states of a reply to a vent.
const (
	// NoteQueued: the reply will reach the filing session on its next turn.
	NoteQueued = "queued"
	// NoteSessionGone: the filing session no longer exists.
	NoteSessionGone = "session_gone"
	// NoteNoSession: the vent names no filing session.
	NoteNoSession = "no_session"
)

// modelVentLimit bounds the listing the model sees.
const modelVentLimit = 50

// casAttempts bounds retries of a vent write that lost a race.
const casAttempts = 5

// FileVent records a vent filed by a session's model.
func (s *Service) FileVent(ctx context.Context, sessionID string, n albedo.NewVent) (albedo.Vent, error) {
	if err := n.Validate(); err != nil {
		return albedo.Vent{}, err
	}
	v := albedo.Vent{Topic: n.Topic, Title: n.Title, Message: n.Message, Suggestion: n.Suggestion, Status: albedo.VentOpen, SessionID: sessionID}
	if sess, err := s.store.Session(ctx, sessionID); err == nil {
		v.Workspace, v.SessionTitle = sess.Workspace, sess.Title
	}
	if v.Title == "" {
		v.Title = v.DisplayTitle()
	}
	v, err := s.store.InsertVent(ctx, v)
	if err != nil {
		return albedo.Vent{}, fmt.Errorf("file vent: %w", err)
	}
	s.shown(ctx, &v)
	return v, nil
}

// Sizes of a page of the vent listing: the default, and the most.
const (
	DefaultVentPage = 50
	MaxVentPage     = 200
)

// VentPage returns up to limit vents newest first, with IDs below before
// (before <= 0: from the newest), and the cursor of the next page: the
// before to ask for next, or 0 when this page is the last. A limit of 0
// means DefaultVentPage; one above MaxVentPage means MaxVentPage.
func (s *Service) VentPage(ctx context.Context, before int64, limit int) ([]albedo.Vent, int64, error) {
	switch {
	case limit <= 0:
		limit = DefaultVentPage
	case limit > MaxVentPage:
		limit = MaxVentPage
	}
	vents, err := s.store.Vents(ctx, before, limit+1)
	if err != nil {
		return nil, 0, err
	}
	var next int64
	if len(vents) > limit {
		vents = vents[:limit]
		next = vents[limit-1].ID
	}
	refs := make([]*albedo.Vent, len(vents))
	for i := range vents {
		refs[i] = &vents[i]
	}
	s.shown(ctx, refs...)
	return vents, next, nil
}

// Vent returns one vent.
func (s *Service) Vent(ctx context.Context, id int64) (albedo.Vent, error) {
	v, err := s.store.Vent(ctx, id)
	if err != nil {
		return albedo.Vent{}, err
	}
	s.shown(ctx, &v)
	return v, nil
}

// ResolveVent closes a vent on behalf of a session's model.
func (s *Service) ResolveVent(ctx context.Context, sessionID string, id int64, note string) (albedo.Vent, error) {
	v, _, err := s.changeVent(ctx, id, 0, func(v *albedo.Vent) error { return v.Resolve(sessionID, note) }, false)
	return v, err
}

// NoteNone is the notification state of a change that sent no reply.
const NoteNone = "none"

// PatchVent applies the user's change to a vent in one write if revision
// is current: nothing is stored unless all of it is valid. A reply is then
// queued for the session that filed the vent; the notification state says
// whether it was.
func (s *Service) PatchVent(ctx context.Context, id, revision int64, p albedo.VentPatch) (albedo.Vent, string, error) {
	if p.Reply == nil && p.Status == nil {
		return albedo.Vent{}, "", albedo.Errorf(albedo.EInvalid, "nothing to change: give a reply or a status")
	}
	if p.Status != nil {
		switch *p.Status {
		case albedo.VentOpen, albedo.VentAcknowledged, albedo.VentResolved, albedo.VentDismissed:
		default:
			return albedo.Vent{}, "", albedo.Errorf(albedo.EInvalid, "vent status %q is not one of open, acknowledged, resolved, dismissed", *p.Status)
		}
	}
	return s.changeVent(ctx, id, revision, func(v *albedo.Vent) error {
		if p.Reply != nil {
			if err := v.SetReply(*p.Reply); err != nil {
				return err
			}
		}
		if p.Status != nil {
			v.Status = *p.Status
		}
		return nil
	}, p.Reply != nil)
}

// DeleteVent removes a vent if revision is current.
func (s *Service) DeleteVent(ctx context.Context, id, revision int64) error {
	if revision <= 0 {
		return albedo.Errorf(albedo.ERevisionRequired, "deleting a vent needs its current revision")
	}
	return s.store.DeleteVent(ctx, id, revision)
}

// changeVent applies change to a vent and writes it if no other write came
// in between. With revision 0 a lost race is retried on the fresh vent;
// otherwise revision must be the vent's current one. With notify, the
// vent's reply is queued for its filing session in the same write, and the
// returned state says whether it was.
func (s *Service) changeVent(ctx context.Context, id, revision int64, change func(*albedo.Vent) error, notify bool) (albedo.Vent, string, error) {
	if revision < 0 {
		return albedo.Vent{}, "", albedo.Errorf(albedo.ERevisionRequired, "this change needs the vent's current revision")
	}
	for attempt := 0; ; attempt++ {
		v, err := s.store.Vent(ctx, id)
		if err != nil {
			return albedo.Vent{}, "", err
		}
		if revision > 0 && v.Revision != revision {
			return albedo.Vent{}, "", albedo.Errorf(albedo.EStale, "vent #%d changed since revision %d (now %d)", id, revision, v.Revision)
		}
		v.Title = v.DisplayTitle()
		if err := change(&v); err != nil {
			return albedo.Vent{}, "", err
		}
		stored, state, err := s.writeVent(ctx, v, notify)
		if err == nil {
			s.shown(ctx, &stored)
			return stored, state, nil
		}
		var e *albedo.Error
		if revision > 0 || attempt+1 == casAttempts || !errors.As(err, &e) || e.Code != albedo.EStale {
			return albedo.Vent{}, "", err
		}
	}
}

// writeVent stores a changed vent and, with notify, queues its reply for
// the session that filed it, in one commit.
func (s *Service) writeVent(ctx context.Context, v albedo.Vent, notify bool) (albedo.Vent, string, error) {
	change := albedo.Commit{Vent: &v}
	state := NoteNone
	if notify {
		state = NoteQueued
		switch _, err := s.store.Session(ctx, v.SessionID); {
		case v.SessionID == "":
			state = NoteNoSession
		case err != nil:
			state = NoteSessionGone
		default:
			change.SessionID = v.SessionID
			change.Enqueue = []albedo.Queued{{
				SessionID: v.SessionID,
				Source:    albedo.ReplySource,
				Text:      fmt.Sprintf("Reply to your vent #%d (%s). The user answers: %s", v.ID, v.Title, v.Reply),
				Timestamp: s.now(),
			}}
			// The row's lock orders the note with the end of its turn.
			st := s.state(v.SessionID)
			st.row.Lock()
			defer st.row.Unlock()
		}
	}
	done, err := s.store.Commit(ctx, change)
	if err != nil {
		return albedo.Vent{}, "", err
	}
	return *done.Vent, state, nil
}

// PendingReplies counts the vent replies waiting for a session's next turn.
func (s *Service) PendingReplies(ctx context.Context, sessionID string) (int, error) {
	queued, err := s.store.Queued(ctx, sessionID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, q := range queued {
		if q.Source == albedo.ReplySource {
			n++
		}
	}
	return n, nil
}

// shown readies vents to be handed out: each gets its display title, the
// name of the session that filed it, and, when the vent does not hold the
// session's title at filing time, the session's current title; sessions
// are looked up once each.
func (s *Service) shown(ctx context.Context, vents ...*albedo.Vent) {
	type filer struct{ name, title string }
	filers := make(map[string]filer)
	for _, v := range vents {
		v.Title = v.DisplayTitle()
		if v.SessionID == "" {
			continue
		}
		f, ok := filers[v.SessionID]
		if !ok {
			if sess, err := s.store.Session(ctx, v.SessionID); err == nil {
				f = filer{name: sess.Name, title: sess.Title}
			}
			filers[v.SessionID] = f
		}
		v.SessionName = f.name
		if v.SessionTitle == "" {
			v.SessionTitle = f.title
		}
	}
}
