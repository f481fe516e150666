package albedo

import (
	"context"
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

// transcript returns a session's transcript, from memory when it is there.
// The returned slice must not be appended to by the caller.
func (s *Service) transcript(ctx context.Context, st *sessionState, id string) ([]Item, error) {
	c := &st.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.valid {
		return c.items[:len(c.items):len(c.items)], nil
	}
	items, err := s.store.Items(ctx, id, 0, 0)
	if err != nil {
		return nil, err
	}
	c.items, c.valid = items, true
	return items[:len(items):len(items)], nil
}

// remember adds newly committed items to the cache, if it is loaded.
func (c *transcriptCache) remember(items []Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.valid {
		c.items = append(c.items, items...)
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
