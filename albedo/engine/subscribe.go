package engine

import (
	"context"
	"sync"

	"github.com/albedo-agent/albedo/albedo"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Subscription is a live view of a session: the events so far, read in
// pages with ReadSnapshot, then a channel of what happens next. The
// channel closes when the subscription is cancelled, the service closes,
// the session is deleted (after a deleted event) or the subscriber falls
// too far behind (after an overflow event).
type Subscription struct {
	// Snapshot is the whole snapshot, filled by Subscribe only;
	// SubscribeFrom leaves it to ReadSnapshot.
	Snapshot []albedo.Event
	// Events delivers what happens after the snapshot.
	Events <-chan albedo.Event
	// Before is the Seq of the oldest durable event of a tailed snapshot,
	// when older events exist; 0 otherwise.
	Before int64
	// Tailed reports whether the snapshot was bounded by Tail.
	Tailed bool

	svc     *Service
	id      string
	from    int64 // the snapshot holds the durable events with from < Seq <= to
	to      int64
	waiting []albedo.Event
	once    sync.Once
	cancel  func()
}

// Last is the Seq of the last durable event the snapshot covers: the
// stream's position once the snapshot is read; 0 for an empty session.
func (sub *Subscription) Last() int64 { return sub.to }

// Close ends the subscription.
func (sub *Subscription) Close() { sub.once.Do(sub.cancel) }

// ReadSnapshot calls fn with the snapshot's events, oldest first, in pages
// read from the store, then once more with the queued messages, if any. A
// page is only valid during the call.
func (sub *Subscription) ReadSnapshot(ctx context.Context, fn func([]albedo.Event) error) error {
	if err := sub.svc.eventPages(ctx, sub.id, sub.from, sub.to, fn); err != nil {
		return err
	}
	if len(sub.waiting) > 0 {
		return fn(sub.waiting)
	}
	return nil
}

// Subscribe returns a session's events so far, whole in Snapshot, and a
// channel of the events that follow them. A client that stops reading
// never disturbs the turn.
func (s *Service) Subscribe(ctx context.Context, id string) (*Subscription, error) {
	sub, err := s.SubscribeFrom(ctx, id, albedo.SubscribeOptions{})
	if err != nil {
		return nil, err
	}
	sub.Snapshot = []albedo.Event{}
	err = sub.ReadSnapshot(ctx, func(page []albedo.Event) error {
		sub.Snapshot = append(sub.Snapshot, page...)
		return nil
	})
	if err != nil {
		sub.Close()
		return nil, err
	}
	return sub, nil
}

// SubscribeFrom returns a subscription whose snapshot starts where opts
// say, to be read in pages with ReadSnapshot, and a channel of the events
// that follow it.
func (s *Service) SubscribeFrom(ctx context.Context, id string, opts albedo.SubscribeOptions) (*Subscription, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return nil, err
	}
	st := s.state(id)
	sub := newSubscriber()
	// No store read happens under the hub's lock, so that a client
	// connecting never delays a running turn's deltas. The subscriber is
	// registered first, with no filter: what is published from then on is
	// buffered. The snapshot's end is read next, and the buffer is then
	// filtered by it under the lock: an item committed before the read is
	// in the snapshot and dropped from the buffer by its Seq; one
	// committed after it stays. Nobody reads the channel before
	// SubscribeFrom returns, so the filtering races with no reader.
	st.hub.mu.Lock()
	if st.hub.subs == nil {
		st.hub.subs = make(map[*subscriber]struct{})
	}
	if s.isClosed() || st.deleted.Load() {
		// Close has ended every subscription, or is about to end those it
		// knows of: this one ends at once.
		sub.end()
	} else {
		st.hub.subs[sub] = struct{}{}
	}
	st.hub.mu.Unlock()
	last, waiting, err := s.snapshotEnd(ctx, id)
	if err != nil {
		st.hub.remove(sub)
		return nil, err
	}
	var shown []albedo.Event
	var afterQueued int64
	for _, q := range waiting {
		if q.Source == "" { // albedo's own notes show once delivered
			shown = append(shown, queuedEvent(q))
		}
		afterQueued = max(afterQueued, q.ID)
	}
	st.hub.mark(sub, last, afterQueued)
	out := &Subscription{Events: sub.ch, svc: s, id: id, to: last, waiting: shown}
	switch {
	case opts.After > 0:
		out.from = min(opts.After, last)
	case opts.Tail > 0:
		out.Tailed = true
		out.from = max(last-int64(opts.Tail), 0)
		if out.from > 0 {
			out.Before = out.from + 1
		}
	}
	out.cancel = func() { st.hub.remove(sub) }
	return out, nil
}

// snapshotEnd reads where a snapshot ends: the Seq of the session's last
// item and the messages waiting now.
func (s *Service) snapshotEnd(ctx context.Context, id string) (int64, []albedo.Queued, error) {
	last, err := s.lastSeq(ctx, id)
	if err != nil {
		return 0, nil, err
	}
	waiting, err := s.store.Queued(ctx, id)
	if err != nil {
		return 0, nil, err
	}
	return last, waiting, nil
}

// lastSeq returns the Seq of a session's last item, 0 when it has none.
func (s *Service) lastSeq(ctx context.Context, id string) (int64, error) {
	last, err := s.store.ItemPage(ctx, id, albedo.ItemQuery{Limit: 1, Newest: true, SeqOnly: true})
	if err != nil || len(last) == 0 {
		return 0, err
	}
	return last[0].Seq, nil
}

// queuedEvent shows a message waiting for the session's next request.
func queuedEvent(q albedo.Queued) albedo.Event {
	return albedo.Event{Type: wire.EventQueued, Text: q.Text, Timestamp: q.Timestamp, Image: q.Image.Meta(), QueueID: q.ID}
}
