package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Vent statuses.
const (
	VentOpen         = "open"
	VentAcknowledged = "acknowledged"
	VentResolved     = "resolved"
	VentDismissed    = "dismissed"
)

// ventsPath is where the paperclips extension keeps the vent ledger.
const ventsPath = "/extensions/paperclips/items"

// Vent is a complaint a model filed in the global ledger.
type Vent struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Topic      string `json:"topic"`
	Status     string `json:"status"`
	Message    string `json:"message"`
	Suggestion string `json:"suggestion"`
	// SessionID is the filing session, nil when unknown.
	SessionID *string `json:"session_id"`
	// SessionName is the filing session's name, when it has one.
	SessionName        string  `json:"session_name,omitempty"`
	Workspace          string  `json:"workspace"`
	Reply              string  `json:"reply"`
	Resolution         string  `json:"resolution"`
	ResolvingSessionID *string `json:"resolving_session_id"`
	// Revision increases with every change; conditional changes name it.
	Revision  int64 `json:"revision"`
	CreatedAt int64 `json:"created_at"`
	UpdatedAt int64 `json:"updated_at"`
}

// Session returns the id of the filing session, or "".
func (v Vent) Session() string {
	if v.SessionID == nil {
		return ""
	}
	return *v.SessionID
}

// Created returns when the vent was filed.
func (v Vent) Created() time.Time { return time.UnixMilli(v.CreatedAt) }

// Closed reports whether the vent is resolved or dismissed.
func (v Vent) Closed() bool { return v.Status == VentResolved || v.Status == VentDismissed }

// ventPath is the API path of one vent.
func ventPath(id string) string { return ventsPath + "/" + url.PathEscape(id) }

// VentPage is one page of the ledger, newest first. Next is the cursor of
// the following page, "" on the last.
type VentPage struct {
	Items []Vent
	Next  string
}

// Vents returns up to limit vents (0: the daemon's default), newest first,
// starting after cursor ("" for the newest).
func (c *Client) Vents(ctx context.Context, limit int, cursor string) (VentPage, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	p := ventsPath
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var out struct {
		Items []struct {
			Value Vent `json:"value"`
		} `json:"items"`
		Next string `json:"next"`
	}
	if _, err := c.do(ctx, http.MethodGet, p, nil, &out, nil); err != nil {
		return VentPage{}, fmt.Errorf("list vents: %w", err)
	}
	page := VentPage{Items: make([]Vent, len(out.Items)), Next: out.Next}
	for i, it := range out.Items {
		page.Items[i] = it.Value
	}
	return page, nil
}

// Vent returns one vent; its Revision is the one its ETag names.
func (c *Client) Vent(ctx context.Context, id string) (Vent, error) {
	var out struct {
		Value Vent `json:"value"`
	}
	h, err := c.do(ctx, http.MethodGet, ventPath(id), nil, &out, nil)
	if err != nil {
		return Vent{}, fmt.Errorf("get vent %s: %w", id, err)
	}
	if rev, ok := parseETag(h.Get("ETag")); ok {
		out.Value.Revision = rev
	}
	return out.Value, nil
}

// parseETag reads a revision from an ETag such as "3" or W/"3".
func parseETag(tag string) (int64, bool) {
	if len(tag) > 2 && tag[:2] == "W/" {
		tag = tag[2:]
	}
	if len(tag) >= 2 && tag[0] == '"' && tag[len(tag)-1] == '"' {
		tag = tag[1 : len(tag)-1]
	}
	n, err := strconv.ParseInt(tag, 10, 64)
	return n, err == nil && n > 0
}

// ifMatch is the If-Match header naming a revision.
func ifMatch(rev int64) map[string]string {
	return map[string]string{"If-Match": `"` + strconv.FormatInt(rev, 10) + `"`}
}

// VentReply is the outcome of a reply.
type VentReply struct {
	// State is "queued" when the note is on its way to the filing session;
	// anything else means that session is gone or unknown (the reply is
	// kept all the same).
	State string
	Vent  Vent
}

// Queued reports whether the reply will reach the filing session.
func (r VentReply) Queued() bool { return r.State == "queued" }

// patchVent changes a vent at its current revision.
func (c *Client) patchVent(ctx context.Context, id string, body map[string]string) (VentReply, error) {
	cur, err := c.Vent(ctx, id)
	if err != nil {
		return VentReply{}, err
	}
	var out struct {
		Notification struct {
			State string `json:"state"`
		} `json:"notification"`
		Resource struct {
			Value Vent `json:"value"`
		} `json:"resource"`
	}
	if _, err := c.do(ctx, http.MethodPatch, ventPath(id), body, &out, ifMatch(cur.Revision)); err != nil {
		return VentReply{}, err
	}
	return VentReply{State: out.Notification.State, Vent: out.Resource.Value}, nil
}

// ReplyVent answers a vent: the vent becomes acknowledged and, when its
// filing session still exists, the reply reaches that session on its next
// turn.
func (c *Client) ReplyVent(ctx context.Context, id, text string) (VentReply, error) {
	r, err := c.patchVent(ctx, id, map[string]string{"reply": text})
	if err != nil {
		return VentReply{}, fmt.Errorf("reply to vent %s: %w", id, err)
	}
	return r, nil
}

// DismissVent closes a vent without resolving it.
func (c *Client) DismissVent(ctx context.Context, id string) (Vent, error) {
	r, err := c.patchVent(ctx, id, map[string]string{"status": VentDismissed})
	if err != nil {
		return Vent{}, fmt.Errorf("dismiss vent %s: %w", id, err)
	}
	return r.Vent, nil
}

// DeleteVent removes a vent from the ledger.
func (c *Client) DeleteVent(ctx context.Context, id string) error {
	cur, err := c.Vent(ctx, id)
	if err != nil {
		return fmt.Errorf("delete vent %s: %w", id, err)
	}
	if _, err := c.do(ctx, http.MethodDelete, ventPath(id), nil, nil, ifMatch(cur.Revision)); err != nil {
		return fmt.Errorf("delete vent %s: %w", id, err)
	}
	return nil
}
