package albedo

import (
	"context"
	"sync"
)

// subscriberBuffer is how many events a slow subscriber may fall behind
// before it is dropped (its channel closes; it can subscribe again).
const subscriberBuffer = 4096

// hub fans a session's events out to its subscribers.
type hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	ch chan Event
	// after is the highest durable Seq the subscriber's snapshot held:
	// durable events at or below it are not sent again.
	after int64
	// afterQueued is the highest queued message the snapshot showed.
	afterQueued int64
}

func (h *hub) remove(sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[sub]; ok {
		delete(h.subs, sub)
		close(sub.ch)
	}
}

// publish sends events to every subscriber without ever blocking the turn.
func (h *hub) publish(events ...Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		for _, ev := range events {
			if ev.Seq != 0 && ev.Seq <= sub.after || ev.QueueID != 0 && ev.QueueID <= sub.afterQueued {
				continue
			}
			select {
			case sub.ch <- ev:
			default:
				delete(h.subs, sub)
				close(sub.ch)
			}
			if _, ok := h.subs[sub]; !ok {
				break
			}
		}
	}
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		delete(h.subs, sub)
		close(sub.ch)
	}
}

// Subscription is a live view of a session: the events so far, then a
// channel of what happens next. The channel closes when the subscription
// is cancelled, the service closes, or the subscriber falls too far behind.
type Subscription struct {
	Snapshot []Event
	Events   <-chan Event
	cancel   func()
}

// Close ends the subscription.
func (sub *Subscription) Close() { sub.cancel() }

// Subscribe returns a session's events so far and a channel of the events
// that follow them. A client that stops reading never disturbs the turn.
func (s *Service) Subscribe(ctx context.Context, id string) (*Subscription, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return nil, err
	}
	st := s.state(id)
	sub := &subscriber{ch: make(chan Event, subscriberBuffer)}
	// The snapshot is read under the hub's lock: an item committed before
	// the read is in the snapshot and filtered from the live channel by its
	// Seq; one committed after it is published once the lock is released.
	st.hub.mu.Lock()
	items, err := s.transcript(ctx, st, id)
	if err != nil {
		st.hub.mu.Unlock()
		return nil, err
	}
	if n := len(items); n > 0 {
		sub.after = items[n-1].Seq
	}
	waiting, err := s.store.Queued(ctx, id)
	if err != nil {
		st.hub.mu.Unlock()
		return nil, err
	}
	snapshot := Events(items)
	for _, q := range waiting {
		if q.Source == "" { // albedo's own notes show once delivered
			snapshot = append(snapshot, queuedEvent(q))
		}
		sub.afterQueued = max(sub.afterQueued, q.ID)
	}
	if st.hub.subs == nil {
		st.hub.subs = make(map[*subscriber]struct{})
	}
	if s.isClosed() {
		// Close has ended every subscription, or is about to end those it
		// knows of: this one ends at once.
		close(sub.ch)
	} else {
		st.hub.subs[sub] = struct{}{}
	}
	st.hub.mu.Unlock()
	return &Subscription{
		Snapshot: snapshot,
		Events:   sub.ch,
		cancel:   func() { st.hub.remove(sub) },
	}, nil
}

// queuedEvent shows a message waiting for the session's next request.
func queuedEvent(q Queued) Event {
	return Event{Type: EventQueued, Text: q.Text, Timestamp: q.Timestamp, Image: q.Image.Meta(), QueueID: q.ID}
}
