package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// ventsPath is where the paperclips extension keeps the vent ledger.
const ventsPath = "/extensions/paperclips/items"

// ventPath is the API path of one vent.
func ventPath(id string) string { return ventsPath + "/" + url.PathEscape(id) }

// Vents returns up to limit vents (0: the daemon's default), newest first,
// starting after cursor ("" for the newest).
func (c *Client) Vents(ctx context.Context, limit int, cursor string) (wire.VentPage, error) {
	p := withQuery(ventsPath, map[string]string{"limit": positive(limit), "cursor": cursor})
	out, err := call[wire.VentList](ctx, c, http.MethodGet, p, nil, "list vents")
	return out.Page(), err
}

// Vent returns one vent; its Revision is the one its ETag names.
func (c *Client) Vent(ctx context.Context, id string) (wire.Vent, error) {
	var out wire.VentResource
	h, err := c.do(ctx, http.MethodGet, ventPath(id), nil, &out, nil)
	if err != nil {
		return wire.Vent{}, fmt.Errorf("get vent %s: %w", id, err)
	}
	if rev, ok := wire.ParseETag(h.Get("ETag")); ok {
		out.Value.Revision = rev
	}
	return out.Value, nil
}

// patchVent changes a vent at its current revision.
func (c *Client) patchVent(ctx context.Context, id string, body wire.VentPatch) (wire.VentReply, error) {
	cur, err := c.Vent(ctx, id)
	if err != nil {
		return wire.VentReply{}, err
	}
	var out wire.VentPatched
	if _, err := c.do(ctx, http.MethodPatch, ventPath(id), body, &out, ifMatch(wire.ETag(cur.Revision))); err != nil {
		return wire.VentReply{}, err
	}
	return out.Reply(), nil
}

// ReplyVent answers a vent: the vent becomes acknowledged and, when its
// filing session still exists, the reply reaches that session on its next
// turn.
func (c *Client) ReplyVent(ctx context.Context, id, text string) (wire.VentReply, error) {
	r, err := c.patchVent(ctx, id, wire.VentPatch{Reply: &text})
	if err != nil {
		return wire.VentReply{}, fmt.Errorf("reply to vent %s: %w", id, err)
	}
	return r, nil
}

// DismissVent closes a vent without resolving it.
func (c *Client) DismissVent(ctx context.Context, id string) (wire.Vent, error) {
	status := wire.VentDismissed
	r, err := c.patchVent(ctx, id, wire.VentPatch{Status: &status})
	if err != nil {
		return wire.Vent{}, fmt.Errorf("dismiss vent %s: %w", id, err)
	}
	return r.Vent, nil
}

// DeleteVent removes a vent from the ledger.
func (c *Client) DeleteVent(ctx context.Context, id string) error {
	cur, err := c.Vent(ctx, id)
	if err == nil {
		_, err = c.do(ctx, http.MethodDelete, ventPath(id), nil, nil, ifMatch(wire.ETag(cur.Revision)))
	}
	if err != nil {
		return fmt.Errorf("delete vent %s: %w", id, err)
	}
	return nil
}
