package client

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// waitPoll is how often Wait asks whether a turn still runs.
const waitPoll = 50 * time.Millisecond

// Wait blocks until the session runs no turn (a turn that goes on because
// messages were queued is waited for too), or ctx ends.
func (c *Client) Wait(ctx context.Context, id string) error {
	for {
		running, err := c.Status(ctx, id)
		if err != nil {
			return fmt.Errorf("wait for session %s: %w", id, err)
		}
		if !running {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for session %s: %w", id, ctx.Err())
		case <-time.After(waitPoll):
		}
	}
}

// Watch yields a session's events: everything so far, then what happens
// next, until the stream ends (the last pair carries the error:
// ErrStreamEnded, or ctx's error) or the caller stops. A stream that
// overflows because the caller fell behind is resumed after its last
// event (Last-Event-ID), so nothing durable is missed or repeated.
func (c *Client) Watch(ctx context.Context, id string) iter.Seq2[wire.Event, error] {
	return func(yield func(wire.Event, error) bool) {
		opts := SubscribeOptions{}
		for {
			s, err := c.SubscribeFrom(ctx, id, opts)
			if err != nil {
				yield(wire.Event{}, err)
				return
			}
			overflowed, stopped := false, false
			wire.Replay(s.Snapshot, s.Events(), func(ev wire.Event, err error) bool {
				if err == nil && ev.Type == wire.EventOverflow {
					overflowed = true
					return false
				}
				stopped = !yield(ev, err)
				return !stopped
			})
			opts.After = s.LastEventID()
			s.Close()
			if !overflowed || stopped {
				return
			}
		}
	}
}

// Close releases the client's idle connections; the daemon keeps running.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}
