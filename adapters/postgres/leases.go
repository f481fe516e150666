package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// Leases are the leases of one process on the store's database: which
// daemon runs each session's turn when several share it. Every expiry is
// reckoned by the server's clock (now()), never by a daemon's.
type Leases struct {
	s     *Store
	owner string
	node  string
	ttl   time.Duration
}

// Leases implements the domain's lease port.
var _ albedo.Leases = (*Leases)(nil)

// Leases returns the leases of owner, shown to people as node; each lives
// ttl after it was taken or last renewed. owner must name one process at a
// time (NewOwner makes one; a daemon keeps its home's from one run to the
// next, which the home's lock makes one process at a time).
func (s *Store) Leases(owner, node string, ttl time.Duration) *Leases {
	return &Leases{s: s, owner: owner, node: node, ttl: ttl}
}

// NewOwner returns a new owner name for Leases.
func NewOwner() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("albedo: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// TTL is how long a lease lives after it was taken or last renewed.
func (l *Leases) TTL() time.Duration { return l.ttl }

// Node names this process to people.
func (l *Leases) Node() string { return l.node }

// Owner names this process in the leases it holds.
func (l *Leases) Owner() string { return l.owner }

// takeSQL takes a session's lease when it has none, it expired, or it is
// the owner's own (one it could not release, the store being unreachable
// then), in one statement: a concurrent take of the same row waits for
// this one and then finds the lease live. Every take increases the epoch.
const takeSQL = `INSERT INTO leases (session_id, owner, node, epoch, expires_at)
	VALUES ($1, $2, $3, 1, now() + $4 * interval '1 millisecond')
	ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, node = EXCLUDED.node,
		epoch = leases.epoch + 1, expires_at = EXCLUDED.expires_at
	WHERE leases.expires_at <= now() OR leases.owner = EXCLUDED.owner
	RETURNING epoch`

// Take gives this process the session's lease when it is free, expired or
// already its own; ok is false when another owner's live lease holds it. A missing session is
// ENotFound.
func (l *Leases) Take(ctx context.Context, sessionID string) (albedo.Lease, bool, error) {
	lease := albedo.Lease{SessionID: sessionID, Owner: l.owner, Node: l.node}
	err := l.s.db.DB.QueryRowContext(ctx, takeSQL, []byte(sessionID), []byte(l.owner), []byte(l.node), l.ttl.Milliseconds()).Scan(&lease.Epoch)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Lease{}, false, nil
	}
	if err != nil {
		return albedo.Lease{}, false, fmt.Errorf("take the lease of session %s: %w", sessionID, failed(err, sessionID))
	}
	return lease, true, nil
}

// Renew extends every live lease of this process by the TTL, in one
// statement, and returns them. An expired lease is not renewed, even
// when no one took it since: its owner has stopped trusting it.
func (l *Leases) Renew(ctx context.Context) ([]albedo.Lease, error) {
	rows, err := l.s.db.DB.QueryContext(ctx, `UPDATE leases SET expires_at = now() + $2 * interval '1 millisecond'
		WHERE owner = $1 AND expires_at > now() RETURNING session_id, epoch`, []byte(l.owner), l.ttl.Milliseconds())
	if err != nil {
		return nil, fmt.Errorf("renew leases: %w", failed(err, ""))
	}
	defer rows.Close()
	var held []albedo.Lease
	for rows.Next() {
		lease := albedo.Lease{Owner: l.owner, Node: l.node}
		var id []byte
		if err := rows.Scan(&id, &lease.Epoch); err != nil {
			return nil, fmt.Errorf("renew leases: %w", failed(err, ""))
		}
		lease.SessionID = string(id)
		held = append(held, lease)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("renew leases: %w", failed(err, ""))
	}
	return held, nil
}

// Release ends a lease at once, unless it was taken since (another owner
// or epoch holds the row then, and it is left alone).
func (l *Leases) Release(ctx context.Context, lease albedo.Lease) error {
	_, err := l.s.db.DB.ExecContext(ctx, `UPDATE leases SET expires_at = now()
		WHERE session_id = $1 AND owner = $2 AND epoch = $3 AND expires_at > now()`,
		[]byte(lease.SessionID), []byte(lease.Owner), lease.Epoch)
	if err != nil {
		return fmt.Errorf("release the lease of session %s: %w", lease.SessionID, failed(err, ""))
	}
	return nil
}

// ReleaseAll ends every lease of this owner at once: those of an earlier
// run of the same owner, which died holding them, so that the turns it
// ran resume now (Recover) instead of once the leases expire.
func (l *Leases) ReleaseAll(ctx context.Context) error {
	_, err := l.s.db.DB.ExecContext(ctx, `UPDATE leases SET expires_at = now() WHERE owner = $1 AND expires_at > now()`, []byte(l.owner))
	if err != nil {
		return fmt.Errorf("release the leases of an earlier run: %w", failed(err, ""))
	}
	return nil
}

// Orphans lists the running sessions whose lease expired, or that have
// none (a store copied from SQLite, or a database older than leases). A
// session whose row another transaction holds locked (a daemon storing
// its turn's start, end or takeover right now) is skipped (SKIP LOCKED):
// the daemons scanning at once do not queue up behind that commit, and
// the next scan sees what it stored. Take decides who takes a session;
// the row lock taken here lasts only for the statement, and is the weaker
// FOR NO KEY UPDATE so that what only share-locks the row (the foreign
// keys of queued messages and ledger rows) is not held up by it; appends
// of items, which advance the row's item counter, wait for the
// statement, but only a session whose lease expired is locked, and
// those appends are fenced out anyway.
func (l *Leases) Orphans(ctx context.Context) ([]albedo.Orphan, error) {
	rows, err := l.s.db.DB.QueryContext(ctx, `SELECT s.id, s.cwd FROM sessions s
		LEFT JOIN leases l ON l.session_id = s.id
		WHERE s.stage = $1 AND (l.session_id IS NULL OR l.expires_at <= now())
		ORDER BY s.updated_at FOR NO KEY UPDATE OF s SKIP LOCKED`, []byte(albedo.StageRunning))
	if err != nil {
		return nil, fmt.Errorf("list orphaned sessions: %w", failed(err, ""))
	}
	defer rows.Close()
	var out []albedo.Orphan
	for rows.Next() {
		var id, cwd []byte
		if err := rows.Scan(&id, &cwd); err != nil {
			return nil, fmt.Errorf("list orphaned sessions: %w", failed(err, ""))
		}
		out = append(out, albedo.Orphan{SessionID: string(id), Workspace: string(cwd)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list orphaned sessions: %w", failed(err, ""))
	}
	return out, nil
}

// Holders returns the node of every live lease, by session id: the
// sessions whose turns some daemon runs now.
func (l *Leases) Holders(ctx context.Context) (map[string]string, error) {
	rows, err := l.s.db.DB.QueryContext(ctx, `SELECT session_id, node FROM leases WHERE expires_at > now()`)
	if err != nil {
		return nil, fmt.Errorf("list the live leases: %w", failed(err, ""))
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, node []byte
		if err := rows.Scan(&id, &node); err != nil {
			return nil, fmt.Errorf("list the live leases: %w", failed(err, ""))
		}
		out[string(id)] = string(node)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the live leases: %w", failed(err, ""))
	}
	return out, nil
}

// holdingSQL reads a session's lease, if it has one, and how many
// milliseconds ago by the server's clock it expired or, without one, the
// session was last written.
const holdingSQL = `SELECT coalesce(l.node, ''::bytea), coalesce(l.expires_at > now(), false),
	greatest(0, floor(extract(epoch FROM now() - coalesce(l.expires_at, to_timestamp(s.updated_at / 1000.0))) * 1000))::bigint
	FROM sessions s LEFT JOIN leases l ON l.session_id = s.id WHERE s.id = $1`

// Holding says who holds the session's lease, or since when none does.
func (l *Leases) Holding(ctx context.Context, sessionID string) (albedo.Holding, error) {
	var node []byte
	var live bool
	var expiredMs int64
	err := l.s.db.DB.QueryRowContext(ctx, holdingSQL, []byte(sessionID)).Scan(&node, &live, &expiredMs)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.Holding{}, albedo.Errorf(albedo.ENotFound, "session %s not found", sessionID)
	}
	if err != nil {
		return albedo.Holding{}, fmt.Errorf("read the lease of session %s: %w", sessionID, failed(err, ""))
	}
	h := albedo.Holding{Last: string(node)}
	if live {
		h.Node = h.Last
	} else {
		h.Expired = time.Duration(expiredMs) * time.Millisecond
	}
	return h, nil
}

// failed returns err for a caller: ENotFound for the foreign key violation
// of a lease of a missing session (sessionID), EStoreUnavailable when the
// server cannot serve now, else err.
func failed(err error, sessionID string) error {
	if sessionID != "" && foreignKeyViolation(err) {
		return albedo.Errorf(albedo.ENotFound, "session %s not found", sessionID)
	}
	return unavailable(err)
}
