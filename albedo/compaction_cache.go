package albedo

import (
	"context"
	"sync"
)

// compactionStates is how many sessions' compaction states the service
// keeps in memory; past that the state read longest ago is read again
// from the store when next needed.
const compactionStates = 256

// statesStore is the service's Store with each session's compaction state
// kept in memory once read, since every model request needs it: only this
// service writes it, through SaveCompaction or a Commit carrying one
// (which keep the state written) or DeleteSession (which forgets it). A
// change that writes a compaction state by another method must forget the
// session's entry too.
type statesStore struct {
	Store
	mu     sync.Mutex
	states map[string]keptState
	// order lists the sessions of states, oldest entry first.
	order []string
	// version counts the writes, so that a read that raced one is not
	// kept.
	version uint64
}

// keptState is a session's compaction state as the store answered it: the
// state, or the error it gave when the session has none.
type keptState struct {
	c   Compaction
	err error
}

func newStatesStore(s Store) *statesStore {
	return &statesStore{Store: s, states: make(map[string]keptState)}
}

// Compaction returns the session's compaction state, from memory when it
// was read before.
func (s *statesStore) Compaction(ctx context.Context, id string) (Compaction, error) {
	s.mu.Lock()
	kept, ok := s.states[id]
	version := s.version
	s.mu.Unlock()
	if ok {
		return kept.c, kept.err
	}
	c, err := s.Store.Compaction(ctx, id)
	if err != nil && ErrorCode(err) != ENotFound {
		return c, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version == version {
		s.keep(id, keptState{c: c, err: err})
	}
	return c, err
}

// SaveCompaction stores c and keeps it once stored.
func (s *statesStore) SaveCompaction(ctx context.Context, c Compaction) error {
	s.forget(c.SessionID)
	err := s.Store.SaveCompaction(ctx, c)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	if err == nil {
		s.keep(c.SessionID, keptState{c: c})
	}
	return err
}

// Commit commits c and, when it carries a compaction state, keeps that
// state once stored.
func (s *statesStore) Commit(ctx context.Context, c Commit) (Committed, error) {
	if c.Compaction == nil {
		return s.Store.Commit(ctx, c)
	}
	// The state is stored as the session's, whatever its SessionID says.
	state := *c.Compaction
	state.SessionID = c.SessionID
	if state.SessionID == "" && c.Session != nil {
		state.SessionID = c.Session.ID
	}
	s.forget(state.SessionID)
	done, err := s.Store.Commit(ctx, c)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	if err == nil {
		s.keep(state.SessionID, keptState{c: state})
	}
	return done, err
}

// DeleteSession deletes the session and forgets its state.
func (s *statesStore) DeleteSession(ctx context.Context, id string) error {
	s.forget(id)
	err := s.Store.DeleteSession(ctx, id)
	s.forget(id)
	return err
}

// forget drops a session's entry.
func (s *statesStore) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	if _, ok := s.states[id]; ok {
		delete(s.states, id)
		for i, x := range s.order {
			if x == id {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
	}
}

// keep adds or replaces an entry, dropping the oldest past
// compactionStates. The caller holds s.mu.
func (s *statesStore) keep(id string, st keptState) {
	if _, ok := s.states[id]; !ok {
		s.order = append(s.order, id)
	}
	s.states[id] = st
	for len(s.order) > compactionStates {
		delete(s.states, s.order[0])
		s.order = s.order[1:]
	}
}
