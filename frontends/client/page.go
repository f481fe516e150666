package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// call sends a request with body (nil: none) and decodes its JSON answer
// as a T; a failure says what was being done, doing formatted with args.
func call[T any](ctx context.Context, c *Client, method, path string, body any, doing string, args ...any) (T, error) {
	var out T
	if _, err := c.do(ctx, method, path, body, &out, nil); err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", fmt.Sprintf(doing, args...), err)
	}
	return out, nil
}

// withQuery appends to path the parameters of q that are not "" (left
// out: the daemon's default).
func withQuery(path string, q map[string]string) string {
	v := url.Values{}
	for name, value := range q {
		if value != "" {
			v.Set(name, value)
		}
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// positive writes n as a query value, "" (left out) when it is not above 0.
func positive[N int | int64](n N) string {
	if n <= 0 {
		return ""
	}
	return strconv.FormatInt(int64(n), 10)
}

// getPage reads one page of a session's resource, GET
// /sessions/{id}/{resource}?after=&limit=, each parameter left out when
// zero or less (from the start; the daemon's default page size).
func getPage[T any](ctx context.Context, c *Client, id, resource string, after int64, limit int) (T, error) {
	p := withQuery(sessionPath(id, resource), map[string]string{"after": positive(after), "limit": positive(limit)})
	return call[T](ctx, c, http.MethodGet, p, nil, "get %s of session %s", resource, id)
}
