package client

import (
	"context"
	"net/http"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Requests returns up to limit rows of a session's request ledger after
// the cursor after (0: from the first row; limit 0: the daemon's default).
func (c *Client) Requests(ctx context.Context, id string, after int64, limit int) (wire.RequestPage, error) {
	return getPage[wire.RequestPage](ctx, c, id, "requests", after, limit)
}

// Context returns how full a session's model context is.
func (c *Client) Context(ctx context.Context, id string) (wire.Context, error) {
	return call[wire.Context](ctx, c, http.MethodGet, sessionPath(id, "context"), nil, "get context of session %s", id)
}
