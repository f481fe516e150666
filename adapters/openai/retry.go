package openai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// retryNotice is the fragment that tells the stream a retry is coming:
// `retrying (2/4) in 1.4 s: <what the provider said>`.
func retryNotice(retry, retries int, wait time.Duration, err error) albedo.Delta {
	msg := err.Error()
	var e *albedo.Error
	if errors.As(err, &e) {
		msg = e.Message
	}
	return albedo.Delta{Kind: albedo.DeltaRetry, Text: fmt.Sprintf("retrying (%d/%d) in %.1f s: %s", retry, retries, wait.Seconds(), msg)}
}

// retryable reports whether an answer with status may succeed when sent
// again.
func retryable(status int) bool {
	switch status {
	case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported:
		// The server does not do what was asked; asking again changes nothing.
		return false
	}
	return status == http.StatusTooManyRequests || status >= 500
}

// backoff is the wait before retry number attempt+1: BaseBackoff doubled
// per attempt, capped at MaxBackoff, of which a random half is jitter.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.baseBackoff
	for range attempt {
		if d >= c.maxBackoff/2 {
			d = c.maxBackoff
			break
		}
		d *= 2
	}
	d = min(d, c.maxBackoff)
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryWait is the wait before retry number attempt+1 of an answer whose
// Retry-After header is header: what the header asks, up to four times
// MaxBackoff, or else the backoff.
func (c *Client) retryWait(attempt int, header string, now time.Time) time.Duration {
	if after, ok := retryAfter(header, now); ok {
		return min(after, 4*c.maxBackoff)
	}
	return c.backoff(attempt)
}

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(min(s, 1<<20)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
