package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// errLeaseLost is the cause given to a turn whose session's lease this
// process lost: it stops without writing, and the process that took the
// lease resumes it.
var errLeaseLost = errors.New("this daemon lost the session's lease")

// leaseKeeper holds the leases of the sessions whose turns this service
// runs while other processes share its store (Options.Leases). A lease is
// taken before a session is stored running here, renewed in one batch a
// few times per TTL, and released when its turn ends or the service
// closes. The service stops trusting a lease a quarter of its TTL before
// it could expire, counting from when its last renewal was sent, so that
// its turn and kernel have stopped before another process may take it.
type leaseKeeper struct {
	port albedo.Leases
	mu   sync.Mutex
	held map[string]heldLease
	// last is the epoch of each session's lease this process held last:
	// a take at any other epoch than the next means another process held
	// it since, and the session's kernel here is stale.
	last map[string]int64
}

// heldLease is a lease and the moment this process stops trusting it. A
// lost lease stays until its turn ends, so that whatever the turn still
// tries to commit fails without reaching the store.
type heldLease struct {
	lease albedo.Lease
	until time.Time
	lost  bool
}

// every is how often the keeper renews leases and looks for orphans.
func (k *leaseKeeper) every() time.Duration { return k.port.TTL() / 4 }

// trust returns until when a lease renewed (or taken) by a request sent at
// sent is trusted.
func (k *leaseKeeper) trust(sent time.Time) time.Time { return sent.Add(k.port.TTL() * 3 / 4) }

// holding returns the lease held on session id, if any, lost or not.
func (k *leaseKeeper) holding(id string) (heldLease, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	h, ok := k.held[id]
	return h, ok
}

// hold records a lease taken by a request sent at sent. It reports
// whether this process held the session's lease before, and whether the
// new one follows that one directly: only then did no other process hold
// it in between, and write to the session.
func (k *leaseKeeper) hold(lease albedo.Lease, sent time.Time) (had, next bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	last, had := k.last[lease.SessionID]
	k.held[lease.SessionID] = heldLease{lease: lease, until: k.trust(sent)}
	k.last[lease.SessionID] = lease.Epoch
	return had, had && last == lease.Epoch-1
}

// lose marks lease lost, when it is the one held on its session and was
// not lost yet, and reports whether it did.
func (k *leaseKeeper) lose(lease albedo.Lease) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	h, ok := k.held[lease.SessionID]
	if !ok || h.lease != lease || h.lost {
		return false
	}
	h.lost = true
	k.held[lease.SessionID] = h
	return true
}

// drop forgets the lease held on session id and returns it.
func (k *leaseKeeper) drop(id string) (heldLease, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	h, ok := k.held[id]
	delete(k.held, id)
	return h, ok
}

// snapshot returns the leases held now and not lost.
func (k *leaseKeeper) snapshot() []heldLease {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]heldLease, 0, len(k.held))
	for _, h := range k.held {
		if !h.lost {
			out = append(out, h)
		}
	}
	return out
}

// renewed extends the trust of the leases of before that the renewal sent
// at sent returned; it returns those it did not return, which are lost.
func (k *leaseKeeper) renewed(before []heldLease, got []albedo.Lease, sent time.Time) []albedo.Lease {
	kept := make(map[albedo.Lease]bool, len(got))
	for _, l := range got {
		kept[l] = true
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var lost []albedo.Lease
	for _, h := range before {
		now, ok := k.held[h.lease.SessionID]
		if !ok || now.lease != h.lease || now.lost {
			continue // released, lost or taken again meanwhile
		}
		if kept[h.lease] {
			now.until = k.trust(sent)
			k.held[h.lease.SessionID] = now
		} else {
			lost = append(lost, h.lease)
		}
	}
	return lost
}

// own makes this process the holder of session id's lease before it stores
// the session running or resumes its turn, and reports whether it is;
// false when another process holds it. Without leases it always is.
//
// The session's caches here (its transcript, compaction state and ledger
// rows; the projection checks itself against the transcript) are right
// while this process holds the lease, since only the holder writes them.
// A lease that does not follow this process's last one directly may come
// after another process's writes: the caches are dropped, and a kernel of
// the session left from before is stopped, its globals no longer the
// transcript's. The caller holds st.row.
func (s *Service) own(ctx context.Context, st *sessionState, id string) (bool, error) {
	k := s.leases
	if k == nil {
		return true, nil
	}
	if h, ok := k.holding(id); ok && !h.lost {
		return true, nil
	}
	sent := time.Now()
	lease, ok, err := k.port.Take(ctx, id)
	if err != nil || !ok {
		return false, err
	}
	had, next := k.hold(lease, sent)
	if !next {
		st.cache.forget()
		if states, ok := s.store.(*statesStore); ok {
			states.forgetSession(id)
		}
	}
	if had && !next {
		s.stopKernel(ctx, st, id, "another daemon ran the session since")
	}
	if !next {
		// Another process may have committed to the session since this
		// one last published its events (its word lost while the
		// store was out of reach): subscribers get those first, before
		// anything this process commits moves their cursor past them.
		s.catchUp(ctx, id, 0)
	}
	return true, nil
}

// release gives up the lease held on session id, if any, at the end of its
// turn or when the service closes: another process may take the turn up
// at once. The caller holds st.row.
func (s *Service) release(ctx context.Context, id string) {
	k := s.leases
	if k == nil {
		return
	}
	h, ok := k.drop(id)
	if !ok || h.lost {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.every())
	defer cancel()
	if err := k.port.Release(ctx, h.lease); err != nil {
		s.log.Warn("release the lease of a session", "session", id, "err", err)
	}
}

// leaseLost stops what runs here of the session whose lease was lost: its
// turn, without writing anything more, and its kernel, so that nothing of
// it goes on beside the process that takes the turn over.
func (s *Service) leaseLost(lease albedo.Lease, why error) {
	if s.leases == nil || !s.leases.lose(lease) {
		return
	}
	s.log.Warn("lost the lease of a session: its turn and kernel stop here, and write nothing more",
		"session", lease.SessionID, "epoch", lease.Epoch, "why", why)
	st := s.state(lease.SessionID)
	if r := st.running(); r != nil {
		r.cancel(errLeaseLost)
	}
	s.stopKernel(context.Background(), st, lease.SessionID, "lease lost")
}

// stopKernel ends the session's kernel, if it has one here, saying why.
func (s *Service) stopKernel(ctx context.Context, st *sessionState, id, why string) {
	st.mu.Lock()
	had := st.kernelLive || st.kernelWarm
	st.kernelLive, st.kernelWarm = false, false
	st.mu.Unlock()
	if err := s.kernel.Stop(context.WithoutCancel(ctx), id); err != nil {
		s.log.Warn("stop the kernel of a session", "session", id, "why", why, "err", err)
	} else if had {
		s.log.Info("stopped the kernel of a session", "session", id, "why", why)
	}
}

// keepLeases renews the held leases and takes over orphaned sessions,
// every few seconds of the TTL, until stop closes.
func (s *Service) keepLeases(stop <-chan struct{}) {
	t := time.NewTicker(s.leases.every())
	defer t.Stop()
	trouble := tickTrouble{log: s.log, failing: map[string]int{}}
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), s.leases.every())
			s.renewLeases(ctx, &trouble)
			s.takeOver(ctx, &trouble)
			cancel()
		}
	}
}

// renewLeases stops trusting the leases whose trust ran out (a renewal
// that failed or came too late: the process may have been stopped), then
// renews the rest in one request.
func (s *Service) renewLeases(ctx context.Context, trouble *tickTrouble) {
	k := s.leases
	held := k.snapshot()
	now := time.Now()
	live := held[:0]
	for _, h := range held {
		if now.After(h.until) {
			s.leaseLost(h.lease, errors.New("not renewed in time"))
		} else {
			live = append(live, h)
		}
	}
	if len(live) == 0 {
		return
	}
	sent := time.Now()
	got, err := k.port.Renew(ctx)
	if err != nil {
		trouble.failed("renew leases", err)
		return
	}
	trouble.worked("renew leases")
	for _, lease := range k.renewed(live, got, sent) {
		s.leaseLost(lease, errors.New("the store refused its renewal: it expired or was taken"))
	}
}

// takeOver resumes the turns of running sessions that no process holds
// the lease of (their daemon died or stopped), as a restart resumes them,
// when their workspace exists on this machine (mapped by the service's
// workspace map).
func (s *Service) takeOver(ctx context.Context, trouble *tickTrouble) {
	orphans, err := s.leases.port.Orphans(ctx)
	if err != nil {
		trouble.failed("look for orphaned sessions", err)
		return
	}
	trouble.worked("look for orphaned sessions")
	for _, o := range orphans {
		if s.isClosed() {
			return
		}
		if s.workspaces.Folder(s.workspaceMap.Local(o.Workspace)) != albedo.FolderDir {
			continue
		}
		ok, err := s.resume(ctx, o.SessionID)
		if err != nil {
			s.log.Warn("take over an orphaned session", "session", o.SessionID, "err", err)
			continue
		}
		if ok {
			s.log.Info("took over the turn of an orphaned session", "session", o.SessionID)
		}
	}
}

// tickTrouble logs a failing step of the lease ticks when it starts
// failing, then once a lease time (every remindTicks ticks) while it
// fails, and once when it works again: not at every tick of a store
// outage. Only the keepLeases goroutine uses it.
type tickTrouble struct {
	log *slog.Logger
	// failing counts the failed ticks of each step failing now.
	failing map[string]int
}

// remindTicks is how many failed ticks, a lease time, pass between two
// lines saying that a step still fails.
const remindTicks = 4

// failed notes that step failed with err.
func (t *tickTrouble) failed(step string, err error) {
	t.failing[step]++
	switch n := t.failing[step]; {
	case n == 1:
		t.log.Warn(step, "err", err)
	case n%remindTicks == 0:
		t.log.Warn(step+" still fails", "failed_ticks", n, "err", err)
	}
}

// worked notes that step worked, logging it when it failed before.
func (t *tickTrouble) worked(step string) {
	if n := t.failing[step]; n > 0 {
		t.log.Info(step+" works again", "failed_ticks", n)
		delete(t.failing, step)
	}
}

// fencedStore is the store of a service that shares it with other
// processes: every commit of a session whose lease the service holds is
// fenced by it, one refused for a lost lease stops the session here, and
// one of a session whose lease the service knows lost fails at once.
type fencedStore struct {
	albedo.Store
	s *Service
}

// Commit commits change, fenced by the lease held on its session, if any.
func (f fencedStore) Commit(ctx context.Context, change albedo.Commit) (albedo.Committed, error) {
	id := change.SessionID
	if id == "" && change.Session != nil {
		id = change.Session.ID
	}
	if h, ok := f.s.leases.holding(id); ok && id != "" {
		if h.lost {
			return albedo.Committed{}, albedo.Errorf(albedo.ELeaseLost, "this daemon lost the lease of session %s: another may run its turn", id)
		}
		change.Lease = &h.lease
	}
	done, err := f.Store.Commit(ctx, change)
	if change.Lease != nil && albedo.ErrorCode(err) == albedo.ELeaseLost {
		f.s.leaseLost(*change.Lease, err)
	}
	return done, err
}
