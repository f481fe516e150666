package app

import (
	"context"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// VentID reads a vent id; anything but a positive number names no vent.
func VentID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, albedo.Errorf(albedo.ENotFound, "no vent %q", id)
	}
	return n, nil
}

// Vents returns up to limit vents (the domain's default of 50 when 0, at
// most 200), newest first, starting after cursor ("" for the newest).
func (a *App) Vents(ctx context.Context, limit int, cursor string) (wire.VentList, error) {
	before, err := WholeNumber("cursor", cursor, 0)
	if err != nil {
		return wire.VentList{}, err
	}
	vents, next, err := a.svc.VentPage(ctx, before, limit)
	if err != nil {
		return wire.VentList{}, err
	}
	list := wire.VentList{Items: make([]wire.VentResource, len(vents))}
	if next > 0 {
		list.Next = strconv.FormatInt(next, 10)
	}
	for i, v := range vents {
		list.Items[i] = wire.VentResource{Value: vent(v)}
	}
	return list, nil
}

// Vent returns one vent; its Revision is the one its ETag names.
func (a *App) Vent(ctx context.Context, id int64) (wire.VentResource, error) {
	v, err := a.svc.Vent(ctx, id)
	if err != nil {
		return wire.VentResource{}, err
	}
	return wire.VentResource{Value: vent(v)}, nil
}

// PatchVent applies a reply, a status or both to a vent if revision is
// current (0: whatever the vent's revision is).
func (a *App) PatchVent(ctx context.Context, id, revision int64, req wire.VentPatch) (wire.VentPatched, error) {
	patch := albedo.VentPatch{Reply: req.Reply}
	if req.Status != nil {
		status := albedo.VentStatus(*req.Status)
		patch.Status = &status
	}
	v, state, err := a.svc.PatchVent(ctx, id, revision, patch)
	if err != nil {
		return wire.VentPatched{}, err
	}
	return wire.VentPatched{Notification: wire.VentNotification{State: state}, Resource: wire.VentResource{Value: vent(v)}}, nil
}

// DeleteVent removes a vent if revision is current.
func (a *App) DeleteVent(ctx context.Context, id, revision int64) (wire.Deleted, error) {
	if err := a.svc.DeleteVent(ctx, id, revision); err != nil {
		return wire.Deleted{}, err
	}
	return wire.Deleted{Deleted: strconv.FormatInt(id, 10)}, nil
}

// FileVent records a vent for a session, as its model would with vent().
func (a *App) FileVent(ctx context.Context, sessionID string, v albedo.NewVent) (wire.Vent, error) {
	filed, err := a.svc.FileVent(ctx, sessionID, v)
	return shown(filed, err, vent)
}
