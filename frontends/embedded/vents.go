package embedded

import (
	"context"
	"fmt"
	"github.com/albedo-agent/albedo/frontends/wire"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
)

// Vents returns up to limit vents (50 when limit is 0 or less, at most 200), newest
// first, starting after cursor ("" for the newest). The page's Next is the
// cursor of the following page, "" on the last.
func (a *Albedo) Vents(ctx context.Context, limit int, cursor string) (VentPage, error) {
	page, err := a.vents(ctx, limit, cursor)
	if err != nil {
		return VentPage{}, fmt.Errorf("list vents: %w", err)
	}
	return page, nil
}

func (a *Albedo) vents(ctx context.Context, limit int, cursor string) (VentPage, error) {
	var before int64
	if cursor != "" {
		n, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil || n < 0 {
			return VentPage{}, albedo.Errorf(albedo.EInvalid, "cursor must be a whole number, not %q", cursor)
		}
		before = n
	}
	vents, next, err := a.svc.VentPage(ctx, before, limit)
	if err != nil {
		return VentPage{}, err
	}
	var page VentPage
	if next > 0 {
		page.Next = strconv.FormatInt(next, 10)
	}
	page.Items = make([]Vent, len(vents))
	for i, v := range vents {
		page.Items[i] = wire.Vent(v)
	}
	return page, nil
}

// ventID reads a vent id; anything but a positive number names no vent.
func ventID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, albedo.Errorf(albedo.ENotFound, "no vent %q", id)
	}
	return n, nil
}

// Vent returns one vent.
func (a *Albedo) Vent(ctx context.Context, id string) (Vent, error) {
	n, err := ventID(id)
	if err != nil {
		return Vent{}, fmt.Errorf("get vent %s: %w", id, err)
	}
	v, err := a.svc.Vent(ctx, n)
	if err != nil {
		return Vent{}, fmt.Errorf("get vent %s: %w", id, err)
	}
	return wire.Vent(v), nil
}

// ReplyVent answers a vent: the vent becomes acknowledged and, when its
// filing session still exists, the reply reaches that session, and only
// it, on its next turn (State "queued"). The reply is kept either way.
func (a *Albedo) ReplyVent(ctx context.Context, id, text string) (VentReply, error) {
	n, err := ventID(id)
	if err != nil {
		return VentReply{}, fmt.Errorf("reply to vent %s: %w", id, err)
	}
	v, state, err := a.svc.ReplyVent(ctx, n, 0, text)
	if err != nil {
		return VentReply{}, fmt.Errorf("reply to vent %s: %w", id, err)
	}
	return VentReply{State: state, Vent: wire.Vent(v)}, nil
}

// DismissVent closes a vent without resolving it.
func (a *Albedo) DismissVent(ctx context.Context, id string) (Vent, error) {
	n, err := ventID(id)
	if err != nil {
		return Vent{}, fmt.Errorf("dismiss vent %s: %w", id, err)
	}
	v, err := a.svc.SetVentStatus(ctx, n, 0, albedo.VentDismissed)
	if err != nil {
		return Vent{}, fmt.Errorf("dismiss vent %s: %w", id, err)
	}
	return wire.Vent(v), nil
}

// DeleteVent removes a vent from the ledger. Like the client, it deletes
// the revision it reads, so a concurrent change makes it fail with
// albedo.EStale.
func (a *Albedo) DeleteVent(ctx context.Context, id string) error {
	if err := a.deleteVent(ctx, id); err != nil {
		return fmt.Errorf("delete vent %s: %w", id, err)
	}
	return nil
}

func (a *Albedo) deleteVent(ctx context.Context, id string) error {
	n, err := ventID(id)
	if err != nil {
		return err
	}
	v, err := a.svc.Vent(ctx, n)
	if err != nil {
		return err
	}
	return a.svc.DeleteVent(ctx, n, v.Revision)
}

// NewVent is a complaint filed through FileVent.
type NewVent = albedo.NewVent

// FileVent records a vent as the session's model would with vent(): for
// programs whose own tools want to report what got in the way. The daemon
// has no route for it: over HTTP only models file vents.
func (a *Albedo) FileVent(ctx context.Context, sessionID string, v NewVent) (Vent, error) {
	filed, err := a.svc.FileVent(ctx, sessionID, v)
	if err != nil {
		return Vent{}, fmt.Errorf("file vent for session %s: %w", sessionID, err)
	}
	return wire.Vent(filed), nil
}
