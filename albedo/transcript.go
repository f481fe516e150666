package albedo

import (
	"context"
	"slices"
	"sync"
)

// transcriptCache keeps a session's transcript in memory while it is in
// use, so that a long session is not read back from the store for every
// model request. Items are never changed once stored, and only the
// session's own turn appends to them, so the cache is the stored
// transcript plus what was committed since it was loaded.
type transcriptCache struct {
	mu    sync.Mutex
	items []Item
	valid bool
}

// cachedSessions bounds how many idle sessions keep their transcript in
// memory; running sessions always do.
const cachedSessions = 16

// transcript returns a session's transcript, from memory when it is there.
// The returned slice must not be appended to by the caller.
func (s *Service) transcript(ctx context.Context, st *sessionState, id string) ([]Item, error) {
	c := &st.cache
	c.mu.Lock()
	if c.valid {
		items := c.items[:len(c.items):len(c.items)]
		c.mu.Unlock()
		s.touchCache(id)
		return items, nil
	}
	items, err := s.store.Items(ctx, id, 0, 0)
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	c.items, c.valid = items, true
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

// remember adds newly committed items to the cache, if it is loaded. A
// cache loaded from the store after the commit already holds them, so only
// items past its last Seq are added.
func (c *transcriptCache) remember(items []Item) {
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
			c.items = append(c.items, it)
		}
	}
}

// forget drops the cache; the next read loads from the store.
func (c *transcriptCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items, c.valid = nil, false
}

// cached returns the cached transcript, if loaded.
func (c *transcriptCache) cached() ([]Item, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items[:len(c.items):len(c.items)], c.valid
}
