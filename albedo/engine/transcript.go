package engine

import (
	"context"
	"slices"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// transcriptCache keeps a session's transcript as model requests need it
// (without cell results) in memory while it is in use, so that a long
// session is not read back from the store for every model request. Items
// are never changed once stored, and only the session's own turn appends
// to them, so the cache is the stored transcript plus what was committed
// since it was loaded.
type transcriptCache struct {
	mu    sync.Mutex
	items []albedo.Item
	valid bool
	// bytes approximates the memory the items hold.
	bytes int
	// projected is what the last model request made of the items; it
	// lives and is dropped with them.
	projected projectionCache
}

// cachedSessions bounds how many idle sessions keep their transcript in
// memory; running sessions always do.
const cachedSessions = 16

// bigTranscript is the size past which an idle session's transcript is
// not kept in memory once its turn ends: the next turn reads it again
// rather than the daemon holding it meanwhile.
const bigTranscript = 8 << 20

// itemBytes approximates the memory an item holds.
func itemBytes(it albedo.Item) int {
	n := 128 + len(it.Text) + len(it.Arguments) + len(it.Raw) + len(it.Source)
	if it.Image != nil {
		n += len(it.Image.Data)
	}
	for _, note := range it.Notes {
		n += len(note)
	}
	return n
}

// transcript returns a session's transcript without cell results, from
// memory when it is there. The returned slice must not be appended to by
// the caller.
func (s *Service) transcript(ctx context.Context, st *sessionState, id string) ([]albedo.Item, error) {
	c := &st.cache
	c.mu.Lock()
	if c.valid {
		items := c.items[:len(c.items):len(c.items)]
		c.mu.Unlock()
		s.touchCache(id)
		return items, nil
	}
	items, err := s.store.ItemPage(ctx, id, albedo.ItemQuery{Images: true, NoResults: true})
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	c.items, c.valid, c.bytes = items, true, 0
	for _, it := range items {
		c.bytes += itemBytes(it)
	}
	c.mu.Unlock()
	s.touchCache(id)
	return items[:len(items):len(items)], nil
}

// touchCache marks a session's cache as recently used and drops the caches
// of the least recently used idle sessions beyond cachedSessions.
func (s *Service) touchCache(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recent = slices.DeleteFunc(s.recent, func(x string) bool { return x == id })
	s.recent = append(s.recent, id)
	for i := 0; len(s.recent) > cachedSessions && i < len(s.recent)-1; {
		st := s.sessions[s.recent[i]]
		if st != nil && st.busy.Load() {
			i++
			continue
		}
		if st != nil {
			st.cache.forget()
		}
		s.recent = slices.Delete(s.recent, i, i+1)
	}
}

// remember adds newly committed items to the cache, if it is loaded,
// without their cell results. A cache loaded from the store after the
// commit already holds them, so only items past its last Seq are added.
func (c *transcriptCache) remember(items []albedo.Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid {
		return
	}
	var last int64
	if n := len(c.items); n > 0 {
		last = c.items[n-1].Seq
	}
	for _, it := range items {
		if it.Seq > last {
			it.Result = nil
			c.items = append(c.items, it)
			c.bytes += itemBytes(it)
		}
	}
}

// forget drops the cache; the next read loads from the store.
func (c *transcriptCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items, c.valid, c.bytes = nil, false, 0
	c.projected.drop()
}

// forgetIfBig drops the cache when it holds a long transcript, and the
// projection of the transcript when both together are long: an idle
// session keeps no more than bigTranscript.
func (c *transcriptCache) forgetIfBig() {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.bytes > bigTranscript:
		c.items, c.valid, c.bytes = nil, false, 0
		c.projected.drop()
	case c.bytes+c.projected.size() > bigTranscript:
		c.projected.drop()
	}
}

// cached returns the cached transcript, if loaded.
func (c *transcriptCache) cached() ([]albedo.Item, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items[:len(c.items):len(c.items)], c.valid
}
