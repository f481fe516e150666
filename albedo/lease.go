package albedo

import (
	"context"
	"time"
)

// Lease is one process's claim to run a session's turn and kernel while
// other processes (daemons on other machines) share its store. A lease is
// named by its owner and epoch: the epoch grows with every take, so an
// owner that lost its lease can neither renew nor release nor write under
// a newer one.
type Lease struct {
	SessionID string
	// Owner names the process holding the lease, unique to one run of it.
	Owner string
	// Node names the daemon holding it, for people.
	Node string
	// Epoch counts the takes of the session's lease.
	Epoch int64
}

// Orphan is a running session whose lease expired, or that has none: no
// process runs its turn.
type Orphan struct {
	SessionID string
	Workspace string
}

// Holding is what the store says of one session's lease now.
type Holding struct {
	// Node names the daemon whose live lease holds the session, "" when
	// none does.
	Node string
	// Last names the daemon that took the session's lease last, live or
	// not; "" when none ever took it.
	Last string
	// Expired is how long ago, by the store's clock, the lease expired,
	// or, for a session that never had one, was last written; zero while
	// a lease lives.
	Expired time.Duration
}

// Leases decides which of the processes sharing a store runs each
// session's turn. The store's clock decides when a lease expires, never a
// process's own. A store that one process alone writes needs none.
type Leases interface {
	// Take gives this process the session's lease when it is free,
	// expired or its own (one it could not release), in one step that no
	// other take can interleave with, at a new epoch; ok is false when
	// another process's live lease holds it.
	Take(ctx context.Context, sessionID string) (lease Lease, ok bool, err error)
	// Renew extends every live lease this process holds by TTL and returns
	// them: a lease missing from the answer is lost.
	Renew(ctx context.Context) ([]Lease, error)
	// Release gives up a lease at once, unless it was taken since.
	Release(ctx context.Context, lease Lease) error
	// Orphans lists the running sessions whose lease expired, or that
	// have none.
	Orphans(ctx context.Context) ([]Orphan, error)
	// Holders returns the node of every live lease, by session id.
	Holders(ctx context.Context) (map[string]string, error)
	// Holding says who holds the session's lease, or since when none
	// does; a missing session is ENotFound.
	Holding(ctx context.Context, sessionID string) (Holding, error)
	// TTL is how long a lease lives after it was taken or last renewed.
	TTL() time.Duration
}

// Changes is word of what other processes sharing the store commit, and
// of interrupts sent between them.
type Changes interface {
	// Watch calls fn, from one goroutine, with the session and last Seq
	// of each commit of items another process makes, until ctx ends.
	// After a lapse in which some may have gone unheard (a lost
	// connection), it calls fn with "" and 0. An interrupt another
	// process asks for comes as the session's id and InterruptSeq, a
	// wake (of any process) as the session's id and WakeSeq.
	Watch(ctx context.Context, fn func(sessionID string, seq int64))
	// Interrupt asks the process that runs the session's turn, whichever
	// it is, to interrupt it.
	Interrupt(ctx context.Context, sessionID string) error
	// Wake tells every process that a message was queued for the
	// session by one that does not hold its lease: the one running its
	// turn delivers it, and should that turn have ended without it, one
	// that takes the lease starts a turn on it.
	Wake(ctx context.Context, sessionID string) error
}

// InterruptSeq is the Seq with which Changes.Watch passes on an
// interrupt.
const InterruptSeq = -1

// WakeSeq is the Seq with which Changes.Watch passes on a wake.
const WakeSeq = -2
