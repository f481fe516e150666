package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/internal/sse"
)

// Stream is a live view of a session: Snapshot holds its events so far, and
// Events yields those that follow. Close it when done.
type Stream struct {
	// Snapshot is every durable event of the session when the stream
	// opened (after SubscribeOptions.After, or its last Tail).
	Snapshot []wire.Event
	// Before is, for a tailed snapshot that does not hold the session's
	// first event, the seq of its oldest event; 0 otherwise.
	Before int64
	// last is the seq of the last durable event read.
	last    int64
	session string
	body    io.ReadCloser
	sse     *sse.Reader
	cancel  context.CancelFunc
}

// SubscribeOptions choose where a stream's snapshot starts.
type SubscribeOptions struct {
	// After resumes a stream (Last-Event-ID): the snapshot holds only the
	// durable events with seq > After, as Stream.LastEventID gives it.
	After int64
	// Tail, without After, bounds the snapshot to the last Tail durable
	// events.
	Tail int
}

// Subscribe opens a session's event stream and reads its snapshot. The
// stream lives until ctx is done or Close is called; reconnecting after it
// ends is the caller's choice.
func (c *Client) Subscribe(ctx context.Context, id string) (*Stream, error) {
	return c.SubscribeFrom(ctx, id, SubscribeOptions{})
}

// SubscribeFrom is Subscribe with a snapshot that starts where opts say:
// reconnecting with After set to LastEventID of the stream that ended
// misses and repeats nothing.
func (c *Client) SubscribeFrom(ctx context.Context, id string, opts SubscribeOptions) (*Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	headers := map[string]string{"Accept": "text/event-stream"}
	if opts.After > 0 {
		headers["Last-Event-ID"] = strconv.FormatInt(opts.After, 10)
	}
	path := sessionPath(id, "stream")
	if opts.After <= 0 && opts.Tail > 0 {
		path += "?tail=" + strconv.Itoa(opts.Tail)
	}
	resp, err := c.send(ctx, http.MethodGet, path, nil, headers)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("subscribe to session %s: %w", id, err)
	}
	s := &Stream{session: id, body: resp.Body, sse: sse.NewReader(resp.Body, 0), cancel: cancel, last: max(opts.After, 0)}
	msg, err := s.read()
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("read snapshot of session %s: %w", id, err)
	}
	s.Snapshot = msg.Events
	if s.Snapshot == nil {
		s.Snapshot = []wire.Event{}
	}
	if msg.Before != nil {
		s.Before = *msg.Before
	}
	return s, nil
}

// LastEventID is the seq of the last durable event the stream delivered
// (its snapshot included): pass it as SubscribeOptions.After to resume.
func (s *Stream) LastEventID() int64 { return s.last }

// read returns the next message of the stream.
func (s *Stream) read() (wire.EventBatch, error) {
	ev, err := s.sse.Next()
	if err == io.EOF {
		return wire.EventBatch{}, wire.ErrStreamEnded
	}
	if err != nil {
		return wire.EventBatch{}, err
	}
	var msg wire.EventBatch
	if err := json.Unmarshal([]byte(ev.Data), &msg); err != nil {
		return wire.EventBatch{}, fmt.Errorf("decode stream message: %w", err)
	}
	if id, err := strconv.ParseInt(ev.ID, 10, 64); err == nil {
		s.last = max(s.last, id)
	}
	for _, ev := range msg.Events {
		s.last = max(s.last, ev.Seq)
	}
	return msg, nil
}

// Events yields the session's events after the snapshot, in order. When
// the stream ends it yields one last non-nil error: ErrStreamEnded when
// the daemon closed it, the context's error when it was cancelled or
// closed, else what went wrong. It is meant to be ranged over once.
func (s *Stream) Events() iter.Seq2[wire.Event, error] {
	return func(yield func(wire.Event, error) bool) {
		for {
			msg, err := s.read()
			if err != nil {
				yield(wire.Event{}, fmt.Errorf("stream of session %s: %w", s.session, err))
				return
			}
			for _, ev := range msg.Events {
				if !yield(ev, nil) {
					return
				}
			}
		}
	}
}

// Close ends the stream.
func (s *Stream) Close() error {
	s.cancel()
	return s.body.Close()
}
