package engine

import (
	"slices"
	"sync"

	"github.com/albedo-agent/albedo/albedo"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Limits of what one subscriber may fall behind by before it is dropped
// with a final overflow event: this many events, or this many bytes of
// event text. A single event larger than the byte limit still passes when
// nothing else waits, so that a reader keeping up never overflows.
const (
	subscriberEvents = 4096
	subscriberBytes  = 8 << 20
)

// EventOverflow is the last event of a subscription whose reader fell too
// far behind; reconnecting with the last seq seen resumes it.
const EventOverflow = wire.EventOverflow

// EventDeleted is the last event of a subscription whose session was
// deleted.
const EventDeleted = wire.EventDeleted

// hub fans a session's events out to its subscribers.
type hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
	// seen is the Seq of the newest durable event published, or held by
	// the snapshot of a subscriber that found the hub without others:
	// where the session's events published by another process are read
	// from (see heard).
	seen int64
	// heard is the Seq of the newest durable event published for another
	// process's commit (publishHeard): this process's own publishing of
	// the same items, if it ran the turn meanwhile, skips them.
	heard int64
	// calls keeps the code of the calls of the session's running turn
	// whose events came from another process, by call id, for the event
	// of their output.
	calls map[string]string
	// forward hands this process's live events to the other processes
	// sharing the store, stamped with the newest durable Seq published
	// before them; nil when none shares it.
	forward func(ev albedo.Event, stamp int64)
}

// subscriber is one reader's bounded buffer: a channel that publish fills
// without ever blocking, and the sizes of the events in it. Only publish
// sends, under the hub's lock, and the reader takes events oldest first,
// so the events still buffered are the last len(ch) of those sent.
type subscriber struct {
	ch chan albedo.Event
	// after is the highest durable Seq the subscriber's snapshot held:
	// durable events at or below it are not sent again.
	after int64
	// afterQueued is the highest queued message the snapshot showed.
	afterQueued int64
	// sizes are the sizes of the events sent and maybe still buffered,
	// oldest first; bytes is their sum.
	sizes []int
	bytes int
	ended bool
}

func newSubscriber() *subscriber {
	// One slot more than the limit, for the final overflow event.
	return &subscriber{ch: make(chan albedo.Event, subscriberEvents+1)}
}

// eventSize approximates the memory an event holds.
func eventSize(ev albedo.Event) int {
	return 64 + len(ev.Text) + len(ev.Result) + len(ev.Code) + len(ev.Source) + len(ev.Name) + len(ev.CallID)
}

// push buffers ev, or ends the subscription with an overflow event when the
// buffer is full. It reports whether the subscriber is still open. The
// hub's lock is held.
func (sub *subscriber) push(ev albedo.Event) bool {
	if sub.ended {
		return false
	}
	taken := len(sub.sizes) - len(sub.ch)
	for _, n := range sub.sizes[:taken] {
		sub.bytes -= n
	}
	sub.sizes = sub.sizes[taken:]
	size := eventSize(ev)
	if len(sub.ch) > 0 && (len(sub.ch) >= subscriberEvents || sub.bytes+size > subscriberBytes) {
		sub.end(albedo.Event{Type: EventOverflow})
		return false
	}
	sub.ch <- ev
	sub.sizes = append(sub.sizes, size)
	sub.bytes += size
	return true
}

// end closes the subscription after last. What is still buffered is
// dropped when last would not fit after it. The hub's lock is held.
func (sub *subscriber) end(last ...albedo.Event) {
	if sub.ended {
		return
	}
	sub.ended = true
	if len(last) > 0 && (len(sub.ch)+len(last) > cap(sub.ch) || sub.bytes > subscriberBytes/2) {
		for len(sub.ch) > 0 {
			select {
			case <-sub.ch:
			default:
			}
		}
	}
	for _, ev := range last {
		select {
		case sub.ch <- ev:
		default:
		}
	}
	sub.sizes, sub.bytes = nil, 0
	close(sub.ch)
}

func (h *hub) remove(sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[sub]; ok {
		delete(h.subs, sub)
		sub.end()
	}
}

// mark sets where a new subscriber's snapshot ends and drops from its
// buffer what the snapshot already holds. The subscriber's reader must not
// have started.
func (h *hub) mark(sub *subscriber, after, afterQueued int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	sub.after, sub.afterQueued = after, afterQueued
	if len(h.subs) == 1 {
		h.seen = max(h.seen, after)
	}
	if sub.ended {
		return
	}
	held := make([]albedo.Event, 0, len(sub.ch))
	for len(sub.ch) > 0 {
		held = append(held, <-sub.ch)
	}
	sub.sizes, sub.bytes = sub.sizes[:0], 0
	for _, ev := range held {
		if !sub.covers(ev) {
			sub.push(ev)
		}
	}
}

// covers reports whether the subscriber's snapshot already holds ev.
func (sub *subscriber) covers(ev albedo.Event) bool {
	return ev.Seq != 0 && ev.Seq <= sub.after || ev.Type == wire.EventQueued && ev.QueueID != 0 && ev.QueueID <= sub.afterQueued
}

// publish queues events for every subscriber without ever blocking the
// turn. Durable events already published as another process's commits
// (publishHeard) are not published again.
func (h *hub) publish(events ...albedo.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.forward != nil {
		stamp := h.seen
		for _, ev := range events {
			if ev.Seq != 0 {
				stamp = max(stamp, ev.Seq)
			} else if sharedLive(ev.Type) {
				h.forward(ev, stamp)
			}
		}
	}
	if h.heard > 0 {
		events = slices.DeleteFunc(slices.Clone(events), func(ev albedo.Event) bool { return ev.Seq != 0 && ev.Seq <= h.heard })
	}
	h.publishLocked(events)
}

// publishHeard publishes the events of items another process committed,
// read after h.seen: those this process published meanwhile are left out.
func (h *hub) publishHeard(events []albedo.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	events = slices.DeleteFunc(events, func(ev albedo.Event) bool { return ev.Seq <= h.seen })
	for _, ev := range events {
		h.heard = max(h.heard, ev.Seq)
	}
	h.publishLocked(events)
}

// publishLocked queues events for every subscriber. The caller holds
// h.mu.
func (h *hub) publishLocked(events []albedo.Event) {
	for _, ev := range events {
		h.seen = max(h.seen, ev.Seq)
	}
	for sub := range h.subs {
		for _, ev := range events {
			if sub.covers(ev) {
				continue
			}
			if !sub.push(ev) {
				delete(h.subs, sub)
				break
			}
		}
	}
}

// cursor returns where the session's events from another process are to
// be read from (the newest durable Seq published), and whether anyone
// subscribes to them.
func (h *hub) cursor() (int64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen, len(h.subs) > 0
}

// closeAll ends every subscription, each after the given last events.
func (h *hub) closeAll(last ...albedo.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		delete(h.subs, sub)
		sub.end(last...)
	}
}
