package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Requests returns up to limit rows of a session's request ledger after
// the cursor after (0: from the first row; limit 0: the daemon's default).
func (c *Client) Requests(ctx context.Context, id string, after int64, limit int) (RequestPage, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	p := sessionPath(id, "requests")
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var out RequestPage
	if _, err := c.do(ctx, http.MethodGet, p, nil, &out, nil); err != nil {
		return RequestPage{}, fmt.Errorf("get requests of session %s: %w", id, err)
	}
	return out, nil
}

// Context returns how full a session's model context is.
func (c *Client) Context(ctx context.Context, id string) (Context, error) {
	var out Context
	if _, err := c.do(ctx, http.MethodGet, sessionPath(id, "context"), nil, &out, nil); err != nil {
		return Context{}, fmt.Errorf("get context of session %s: %w", id, err)
	}
	return out, nil
}
