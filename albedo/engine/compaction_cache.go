package engine

import (
	"context"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// compactionStates is how many sessions' compaction states the service
// keeps in memory; past that the state read longest ago is read again
// from the store when next needed.
const compactionStates = 256

// statesStore is the service's Store with what every model request reads
// kept in memory once read: each session's compaction state, and the
// newest row of each kind of its request ledger. Only this service writes
// them: the state through SaveCompaction or a Commit carrying one (which
// keep the state written), the ledger through AppendRequest (which keeps
// the row appended), and DeleteSession forgets both. A change that writes
// them by another method must forget the session's entries too. Where
// other processes share the store, only the holder of a session's lease
// writes them, and own drops what is kept of a session when it takes a
// lease that another process may have held since.
type statesStore struct {
	albedo.Store
	mu     sync.Mutex
	states *boundedMap[string, keptState]
	// last holds the newest ledger rows.
	last *boundedMap[lastKey, keptRow]
	// version counts the writes, so that a read that raced one is not
	// kept.
	version uint64
}

// lastKey names the newest ledger row of one kind of one session.
type lastKey struct {
	session string
	kind    albedo.RequestKind
}

// keptRow is a LastRequest answer.
type keptRow struct {
	row albedo.RequestRow
	ok  bool
}

// keptState is a session's compaction state as the store answered it: the
// state, or the error it gave when the session has none.
type keptState struct {
	c   albedo.Compaction
	err error
}

func newStatesStore(s albedo.Store) *statesStore {
	return &statesStore{
		Store:  s,
		states: newBoundedMap[string, keptState](compactionStates),
		last:   newBoundedMap[lastKey, keptRow](2 * compactionStates),
	}
}

// Compaction returns the session's compaction state, from memory when it
// was read before.
func (s *statesStore) Compaction(ctx context.Context, id string) (albedo.Compaction, error) {
	s.mu.Lock()
	kept, ok := s.states.get(id)
	version := s.version
	s.mu.Unlock()
	if ok {
		return kept.c, kept.err
	}
	c, err := s.Store.Compaction(ctx, id)
	if err != nil && albedo.ErrorCode(err) != albedo.ENotFound {
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
func (s *statesStore) SaveCompaction(ctx context.Context, c albedo.Compaction) error {
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
func (s *statesStore) Commit(ctx context.Context, c albedo.Commit) (albedo.Committed, error) {
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

// LastRequest returns a session's newest ledger row of kind, from memory
// when it was read or appended before.
func (s *statesStore) LastRequest(ctx context.Context, id string, kind albedo.RequestKind) (albedo.RequestRow, bool, error) {
	key := lastKey{id, kind}
	s.mu.Lock()
	kept, ok := s.last.get(key)
	version := s.version
	s.mu.Unlock()
	if ok {
		return kept.row, kept.ok, nil
	}
	row, found, err := s.Store.LastRequest(ctx, id, kind)
	if err != nil {
		return row, found, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version == version {
		s.keepRow(key, keptRow{row: row, ok: found})
	}
	return row, found, nil
}

// AppendRequest appends a ledger row and keeps it as its kind's newest.
func (s *statesStore) AppendRequest(ctx context.Context, row albedo.RequestRow) (albedo.RequestRow, error) {
	key := lastKey{row.SessionID, row.Kind}
	s.mu.Lock()
	s.version++
	s.mu.Unlock()
	stored, err := s.Store.AppendRequest(ctx, row)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	if err != nil {
		// Whether the row landed is unknown: read it again when needed.
		s.dropRow(key)
		return stored, err
	}
	s.keepRow(key, keptRow{row: stored, ok: true})
	return stored, nil
}

// dropRow forgets a ledger entry. The caller holds s.mu.
func (s *statesStore) dropRow(key lastKey) { s.last.remove(key) }

// keepRow adds or replaces a ledger entry, dropping the oldest past
// 2*compactionStates. The caller holds s.mu.
func (s *statesStore) keepRow(key lastKey, kept keptRow) { s.last.put(key, kept) }

// DeleteSession deletes the session and forgets its state and ledger
// rows.
func (s *statesStore) DeleteSession(ctx context.Context, id string) error {
	s.forget(id)
	err := s.Store.DeleteSession(ctx, id)
	s.forget(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last.removeIf(func(key lastKey) bool { return key.session == id })
	return err
}

// forgetSession drops everything kept of a session, for a process that
// may have written it meanwhile.
func (s *statesStore) forgetSession(id string) {
	s.forget(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last.removeIf(func(key lastKey) bool { return key.session == id })
}

// forget drops a session's entry.
func (s *statesStore) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	s.states.remove(id)
}

// keep adds or replaces an entry, dropping the oldest past
// compactionStates. The caller holds s.mu.
func (s *statesStore) keep(id string, st keptState) { s.states.put(id, st) }
