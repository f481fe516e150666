package embedded

import (
	"cmp"
	"context"
	"fmt"
	"iter"

	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// Stream is a live view of a session: Snapshot holds its events so far,
// and Events yields those that follow. Close it when done. It has the
// shape of the client's stream of the same name.
type Stream struct {
	// Snapshot is every durable event of the session when the stream
	// opened.
	Snapshot []wire.Event
	session  string
	sub      *engine.Subscription
	ctx      context.Context
	cancel   context.CancelFunc
}

// Subscribe opens a session's event stream and takes its snapshot. The
// stream lives until ctx is done or Close is called. A reader that falls
// thousands of events behind is dropped (its stream ends with
// ErrStreamEnded); a slow reader never holds up the turn.
func (a *Albedo) Subscribe(ctx context.Context, id string) (*Stream, error) {
	sub, err := a.app.Service().Subscribe(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("subscribe to session %s: %w", id, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	return &Stream{Snapshot: sub.Snapshot, session: id, sub: sub, ctx: ctx, cancel: cancel}, nil
}

// Events yields the session's events after the snapshot, in order. When
// the stream ends it yields one last non-nil error: ErrStreamEnded when
// albedo closed it, the context's error when ctx ended or Close was
// called. It is meant to be ranged over once.
func (s *Stream) Events() iter.Seq2[wire.Event, error] {
	return func(yield func(wire.Event, error) bool) {
		for {
			select {
			case ev, ok := <-s.sub.Events:
				if !ok {
					yield(wire.Event{}, s.end())
					return
				}
				if !yield(ev, nil) {
					return
				}
			case <-s.ctx.Done():
				yield(wire.Event{}, s.end())
				return
			}
		}
	}
}

// end says why the stream ended.
func (s *Stream) end() error {
	return fmt.Errorf("stream of session %s: %w", s.session, cmp.Or(s.ctx.Err(), wire.ErrStreamEnded))
}

// Close ends the stream.
func (s *Stream) Close() error {
	s.cancel()
	s.sub.Close()
	return nil
}

// Watch yields a session's events so far and then those that follow as
// they happen, until ctx ends or the loop stops. When it ends on its own
// it yields one last non-nil error: ErrStreamEnded when albedo ended the
// stream, ctx's error when ctx ended, or why the session could not be
// watched.
func (a *Albedo) Watch(ctx context.Context, id string) iter.Seq2[wire.Event, error] {
	return func(yield func(wire.Event, error) bool) {
		s, err := a.Subscribe(ctx, id)
		if err != nil {
			yield(wire.Event{}, err)
			return
		}
		defer s.Close()
		wire.Replay(s.Snapshot, s.Events(), yield)
	}
}
