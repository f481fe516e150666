package sqlite

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// sessionCache holds every stored session, so that reading one or listing
// them all runs no query. It is right because one process at a time writes
// a home's database (the daemon, or a program embedding albedo, holds the
// home's lock) and every session it writes goes through Commit, which
// updates the cache once its transaction has committed. The cache fills
// on first use.
type sessionCache struct {
	mu sync.Mutex
	// byID is nil until the cache is filled.
	byID map[string]albedo.Session
	// listing is every session in listing order; nil when a change has
	// made it stale.
	listing []albedo.Session
}

// fill loads every session from the database on first use. c.mu is held.
func (c *sessionCache) fill(ctx context.Context, s *Store) error {
	if c.byID != nil {
		return nil
	}
	all, err := selectSessions(ctx, s.read.NewSelect().OrderExpr("updated_at DESC, id"))
	if err != nil {
		return err
	}
	c.byID = make(map[string]albedo.Session, len(all))
	for _, sess := range all {
		c.byID[sess.ID] = sess
	}
	c.listing = all
	return nil
}

// session returns the session with id, and whether there is one.
func (c *sessionCache) session(ctx context.Context, s *Store, id string) (albedo.Session, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.fill(ctx, s); err != nil {
		return albedo.Session{}, false, err
	}
	sess, ok := c.byID[id]
	return sess, ok, nil
}

// sessions returns a copy of every session, most recently updated first,
// then by ID.
func (c *sessionCache) sessions(ctx context.Context, s *Store) ([]albedo.Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.fill(ctx, s); err != nil {
		return nil, err
	}
	if c.listing == nil {
		c.listing = make([]albedo.Session, 0, len(c.byID))
		for _, sess := range c.byID {
			c.listing = append(c.listing, sess)
		}
		slices.SortFunc(c.listing, func(a, b albedo.Session) int {
			if n := b.UpdatedAt.Compare(a.UpdatedAt); n != 0 {
				return n
			}
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return slices.Clone(c.listing), nil
}

// put records a session as committed. Before the cache is filled it does
// nothing: filling reads the session from the database.
func (c *sessionCache) put(sess albedo.Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		return
	}
	c.byID[sess.ID] = sess
	c.listing = nil
}

// remove forgets a deleted session.
func (c *sessionCache) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		return
	}
	delete(c.byID, id)
	c.listing = nil
}
