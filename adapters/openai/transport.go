package openai

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/internal/sse"
)

// maxErrorBody caps how much of an error answer is read.
const maxErrorBody = 64 << 10

// exchange posts body to url and feeds the answer's events to dec. The idle
// timer runs from the first attempt to the end of the stream: every byte
// received re-arms it, and when it fires the request is cancelled. Every
// attempt is reported to report as it ends.
func (c *Client) exchange(parent context.Context, ep albedo.Endpoint, url string, body *requestBody, dec decoder, onDelta func(albedo.Delta), report func(albedo.Attempt)) (albedo.ModelReply, error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	idle := time.AfterFunc(c.idle, func() { cancel(errIdle) })
	defer idle.Stop()

	att := attempts{report: report, bytes: body.Len()}
	resp, err := c.open(ctx, ep, url, body, idle, onDelta, &att)
	if err != nil {
		err = c.interrupted(parent, ctx, ep, err)
		att.end(parent, albedo.Usage{}, err)
		return albedo.ModelReply{}, err
	}
	defer resp.Body.Close()

	limit := replyLimit(ep)
	events := sse.NewReader(&idleReader{r: resp.Body, timer: idle, d: c.idle}, limit)
	reply, err := decode(parent, events, dec)
	var broke *readError
	var long *sse.TooLong
	switch {
	case errors.As(err, &long):
		err = capFailure(ep, limit, long.What+" longer than")
	case errors.As(err, &broke):
		err = c.interrupted(parent, ctx, ep, failure(ep, nil, "stream broke: %v", broke.err))
	}
	att.end(parent, reply.Usage, err)
	if err != nil && parent.Err() == nil {
		return dec.partial(), err
	}
	return reply, err
}

// readError is a failure to read the body of a stream.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }

// decode feeds events to dec until the stream's end event or the end of the
// body, and returns dec's reply. A cancelled ctx stops it between events.
func decode(ctx context.Context, events *sse.Reader, dec decoder) (albedo.ModelReply, error) {
	for {
		ev, err := events.Next()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			// An event the body ended inside is dropped.
			return dec.reply(false)
		}
		var long *sse.TooLong
		if errors.As(err, &long) {
			return albedo.ModelReply{}, err
		}
		if err != nil {
			return albedo.ModelReply{}, &readError{err}
		}
		if ctx.Err() != nil {
			return albedo.ModelReply{}, ctx.Err()
		}
		end, err := dec.event(ev)
		if err != nil {
			return albedo.ModelReply{}, err
		}
		if end {
			return dec.reply(true)
		}
	}
}

// interrupted explains err, a failure while the request was under way: the
// caller's cancellation wins, then the idle timer, then err itself.
func (c *Client) interrupted(parent, ctx context.Context, ep albedo.Endpoint, err error) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	if errors.Is(context.Cause(ctx), errIdle) {
		return failure(ep, nil, "sent nothing for %s", c.idle)
	}
	return err
}

// open sends the request until it gets a streaming 2xx answer, retrying
// connection failures, 429 and 5xx answers with capped, jittered
// exponential backoff, and telling onDelta of each retry. Errors are
// provider errors or the context's. Each attempt that is retried is
// reported to att as it ends.
func (c *Client) open(ctx context.Context, ep albedo.Endpoint, url string, body *requestBody, idle *time.Timer, onDelta func(albedo.Delta), att *attempts) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		idle.Reset(c.idle)
		att.begin()
		resp, err := c.send(ctx, ep, url, body)
		var wait time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			err = unreachable(ep, url, err)
			wait = c.backoff(attempt)
		case resp.StatusCode/100 == 2:
			if typ, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); typ == "application/json" {
				// Some gateways answer 200 with a JSON error instead of a stream.
				raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
				resp.Body.Close()
				att.status = resp.StatusCode
				return nil, failure(ep, map[string]any{"status": resp.StatusCode},
					"answered %d with JSON instead of an event stream: %s", resp.StatusCode, quote(ep, providerMessage(raw)))
			}
			att.status = resp.StatusCode
			if page, ok := htmlPage(resp.Header, nil); ok {
				resp.Body.Close()
				return nil, failure(ep, map[string]any{"status": resp.StatusCode},
					"answered %d with %s from %s instead of an event stream: not an OpenAI-compatible API; check the base URL", resp.StatusCode, page, url)
			}
			return resp, nil
		default:
			raw, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
			att.status = resp.StatusCode
			if readErr != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			err = statusFailure(ep, url, resp.StatusCode, resp.Header, raw)
			if !retryable(resp.StatusCode) {
				return nil, err
			}
			wait = c.retryWait(attempt, resp.Header.Get("Retry-After"), time.Now())
		}
		if attempt >= c.retries {
			return nil, err
		}
		att.end(ctx, albedo.Usage{}, err)
		c.log.Warn("model request failed, retrying",
			"provider", ep.Provider, "attempt", attempt+1, "wait", wait, "error", err)
		idle.Stop()
		onDelta(retryNotice(attempt+1, c.retries, wait, err))
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// send makes one attempt.
func (c *Client) send(ctx context.Context, ep albedo.Endpoint, url string, body *requestBody) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body.reader())
	if err != nil {
		return nil, err
	}
	// The body streams from its pieces; its length is known.
	req.ContentLength = body.Len()
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(body.reader()), nil }
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if ep.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+ep.APIKey)
	}
	return c.http.Do(req)
}

// idleReader re-arms the idle timer whenever the body yields data.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

// Read reads from the body.
func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(r.d)
	}
	return n, err
}
