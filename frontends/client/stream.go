package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Stream is a live view of a session: Snapshot holds its events so far, and
// Events yields those that follow. Close it when done.
type Stream struct {
	// Snapshot is every durable event of the session when the stream
	// opened.
	Snapshot []Event
	session  string
	body     io.ReadCloser
	sse      *sseReader
	cancel   context.CancelFunc
}

// Subscribe opens a session's event stream and reads its snapshot. The
// stream lives until ctx is done or Close is called; reconnecting after it
// ends is the caller's choice.
func (c *Client) Subscribe(ctx context.Context, id string) (*Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.send(ctx, http.MethodGet, sessionPath(id, "stream"), nil, map[string]string{"Accept": "text/event-stream"})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("subscribe to session %s: %w", id, err)
	}
	s := &Stream{session: id, body: resp.Body, sse: newSSEReader(resp.Body), cancel: cancel}
	msg, err := s.read()
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("read snapshot of session %s: %w", id, err)
	}
	s.Snapshot = msg.Events
	if s.Snapshot == nil {
		s.Snapshot = []Event{}
	}
	return s, nil
}

// read returns the next message of the stream.
func (s *Stream) read() (wire.EventBatch, error) {
	data, err := s.sse.next()
	if err == io.EOF {
		return wire.EventBatch{}, ErrStreamEnded
	}
	if err != nil {
		return wire.EventBatch{}, err
	}
	var msg wire.EventBatch
	if err := json.Unmarshal(data, &msg); err != nil {
		return wire.EventBatch{}, fmt.Errorf("decode stream message: %w", err)
	}
	return msg, nil
}

// Events yields the session's events after the snapshot, in order. When
// the stream ends it yields one last non-nil error: ErrStreamEnded when
// the daemon closed it, the context's error when it was cancelled or
// closed, else what went wrong. It is meant to be ranged over once.
func (s *Stream) Events() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			msg, err := s.read()
			if err != nil {
				yield(Event{}, fmt.Errorf("stream of session %s: %w", s.session, err))
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
