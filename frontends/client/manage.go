package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// FindSessions lists the sessions f matches, most recently updated first,
// and the cursor of the next page ("" on the last).
func (c *Client) FindSessions(ctx context.Context, f wire.SessionFilter) ([]wire.Session, string, error) {
	q := url.Values{}
	for name, value := range map[string]string{"q": f.Query, "workspace": f.Workspace, "archived": f.Archived, "cursor": f.Cursor} {
		if value != "" {
			q.Set(name, value)
		}
	}
	if f.Limit > 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	path := "/sessions"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out []wire.Session
	h, err := c.do(ctx, http.MethodGet, path, nil, &out, nil)
	if err != nil {
		return nil, "", fmt.Errorf("find sessions: %w", err)
	}
	return out, h.Get("X-Next-Cursor"), nil
}

// DeleteSession deletes an idle session and everything kept for it
// (CodeBusy while it runs a turn).
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	if _, err := c.do(ctx, http.MethodDelete, sessionPath(id), nil, nil, nil); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// SetArchived archives a session or brings it back: it reads the
// session's ETag and sends the change conditionally on it.
func (c *Client) SetArchived(ctx context.Context, id string, archived bool) (wire.Config, error) {
	cur, err := c.Config(ctx, id)
	if err != nil {
		return wire.Config{}, err
	}
	var out wire.Config
	h, err := c.do(ctx, http.MethodPatch, sessionPath(id)+"?view=configuration", map[string]bool{"archived": archived}, &out, map[string]string{"If-Match": cur.ETag})
	if err != nil {
		return wire.Config{}, fmt.Errorf("archive session %s: %w", id, err)
	}
	out.ETag = h.Get("ETag")
	return out, nil
}
