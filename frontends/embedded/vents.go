package embedded

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
)

// Vents returns up to limit vents (50 when limit is 0 or less, at most 200), newest
// first, starting after cursor ("" for the newest). The page's Next is the
// cursor of the following page, "" on the last.
func (a *Albedo) Vents(ctx context.Context, limit int, cursor string) (wire.VentPage, error) {
	list, err := a.app.Vents(ctx, limit, cursor)
	return list.Page(), failed(err, "list vents")
}

// Vent returns one vent.
func (a *Albedo) Vent(ctx context.Context, id string) (wire.Vent, error) {
	v, err := a.vent(ctx, id)
	return v, failed(err, "get vent %s", id)
}

func (a *Albedo) vent(ctx context.Context, id string) (wire.Vent, error) {
	n, err := app.VentID(id)
	if err != nil {
		return wire.Vent{}, err
	}
	r, err := a.app.Vent(ctx, n)
	return r.Value, err
}

// patchVent changes a vent whatever its revision.
func (a *Albedo) patchVent(ctx context.Context, id string, patch wire.VentPatch) (wire.VentReply, error) {
	n, err := app.VentID(id)
	if err != nil {
		return wire.VentReply{}, err
	}
	p, err := a.app.PatchVent(ctx, n, 0, patch)
	if err != nil {
		return wire.VentReply{}, err
	}
	return p.Reply(), nil
}

// ReplyVent answers a vent: the vent becomes acknowledged and, when its
// filing session still exists, the reply reaches that session, and only
// it, on its next turn (State "queued"). The reply is kept either way.
func (a *Albedo) ReplyVent(ctx context.Context, id, text string) (wire.VentReply, error) {
	r, err := a.patchVent(ctx, id, wire.VentPatch{Reply: &text})
	return r, failed(err, "reply to vent %s", id)
}

// DismissVent closes a vent without resolving it.
func (a *Albedo) DismissVent(ctx context.Context, id string) (wire.Vent, error) {
	status := wire.VentDismissed
	r, err := a.patchVent(ctx, id, wire.VentPatch{Status: &status})
	return r.Vent, failed(err, "dismiss vent %s", id)
}

// DeleteVent removes a vent from the ledger. Like the client, it deletes
// the revision it reads, so a concurrent change makes it fail with
// albedo.EStale.
func (a *Albedo) DeleteVent(ctx context.Context, id string) error {
	return failed(a.deleteVent(ctx, id), "delete vent %s", id)
}

func (a *Albedo) deleteVent(ctx context.Context, id string) error {
	n, err := app.VentID(id)
	if err != nil {
		return err
	}
	cur, err := a.app.Vent(ctx, n)
	if err != nil {
		return err
	}
	_, err = a.app.DeleteVent(ctx, n, cur.Value.Revision)
	return err
}

// NewVent is a complaint filed through FileVent.
type NewVent = albedo.NewVent

// FileVent records a vent as the session's model would with vent(): for
// programs whose own tools want to report what got in the way. The daemon
// has no route for it: over HTTP only models file vents.
func (a *Albedo) FileVent(ctx context.Context, sessionID string, v NewVent) (wire.Vent, error) {
	filed, err := a.app.FileVent(ctx, sessionID, v)
	return filed, failed(err, "file vent for session %s", sessionID)
}
