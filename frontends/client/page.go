package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// getPage reads one page of a session's resource, GET
// /sessions/{id}/{resource}?after=&limit=, each parameter left out when
// zero (from the start; the daemon's default page size).
func getPage[T any](ctx context.Context, c *Client, id, resource string, after int64, limit int) (T, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	p := sessionPath(id, resource)
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var out T
	if _, err := c.do(ctx, http.MethodGet, p, nil, &out, nil); err != nil {
		var zero T
		return zero, fmt.Errorf("get %s of session %s: %w", resource, id, err)
	}
	return out, nil
}
