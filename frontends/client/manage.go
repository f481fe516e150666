package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// FindSessions lists the sessions f matches, most recently updated first,
// and the cursor of the next page ("" on the last).
func (c *Client) FindSessions(ctx context.Context, f wire.SessionFilter) ([]wire.Session, string, error) {
	path := withQuery("/sessions", map[string]string{"q": f.Query, "workspace": f.Workspace, "archived": f.Archived, "cursor": f.Cursor, "limit": positive(f.Limit)})
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
	_, err := call[wire.Deleted](ctx, c, http.MethodDelete, sessionPath(id), nil, "delete session %s", id)
	return err
}

// SetArchived archives a session or brings it back: it reads the
// session's ETag and sends the change conditionally on it.
func (c *Client) SetArchived(ctx context.Context, id string, archived bool) (wire.Config, error) {
	out, err := c.configure(ctx, id, wire.ConfigPatch{Archived: &archived})
	if err != nil {
		return wire.Config{}, fmt.Errorf("archive session %s: %w", id, err)
	}
	return out, nil
}
