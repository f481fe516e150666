package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// Commit applies one change in a single transaction: the session is upserted
// when given, then items are appended, messages enqueued and dequeued, all
// for change.SessionID (Session.ID by default). Items or messages for a
// session that does not exist are ENotFound, and nothing of the change
// lands. Zero session times are stored as the current time. A vent in the
// change is written as UpdateVent writes it, and a compaction state as
// SaveCompaction writes it, in the same transaction. A change fenced by a
// lease checks it first, in the same transaction (ELeaseLost).
func (s *Store) Commit(ctx context.Context, change albedo.Commit) (albedo.Committed, error) {
	sessionID := change.SessionID
	if sessionID == "" && change.Session != nil {
		sessionID = change.Session.ID
	}
	touchesSession := len(change.Items) > 0 || len(change.Enqueue) > 0 || len(change.Dequeue) > 0 || change.Compaction != nil
	if change.Session == nil && change.Vent == nil && !touchesSession {
		return albedo.Committed{}, nil
	}
	if touchesSession && sessionID == "" {
		return albedo.Committed{}, albedo.Errorf(albedo.EInvalid, "the change names no session")
	}
	now := time.Now()
	s.writing.Lock()
	defer s.writing.Unlock()
	if change.Lease != nil && !s.d.Leases {
		return albedo.Committed{}, albedo.Errorf(albedo.EInvalid, "this store keeps no leases")
	}
	if s.d.OneStatementAppend && itemsOnly(change) {
		// One statement is atomic by itself: no transaction to begin and
		// commit, one round trip; the lease, if any, is checked in it.
		items, err := s.appendItems(ctx, s.write.DB, sessionID, change.Items, change.Lease, s.notifies(sessionID))
		if err != nil {
			return albedo.Committed{}, fmt.Errorf("commit to session %s: %w", sessionID, s.failed(err, sessionID))
		}
		return albedo.Committed{Items: items}, nil
	}
	var done albedo.Committed
	err := RunInTx(ctx, s.write, func(ctx context.Context, tx *sql.Tx) error {
		if change.Lease != nil {
			if err := s.checkLease(ctx, tx, change.Lease); err != nil {
				return err
			}
		}
		if change.Session != nil && change.Expect != 0 {
			if err := s.expectRevision(ctx, tx, change.Session.ID, change.Expect); err != nil {
				return err
			}
		}
		if change.Session != nil {
			if err := s.upsertSession(ctx, tx, change.Session, now); err != nil {
				return err
			}
		}
		// Items, messages and compaction states of a missing session
		// fail on their foreign key (see failed).
		var err error
		if len(change.Items) > 0 {
			if done.Items, err = s.appendItems(ctx, tx, sessionID, change.Items, nil, false); err != nil {
				return err
			}
			if s.notifies(sessionID) {
				if err := s.notifyInTx(ctx, tx, sessionID, done.Items[len(done.Items)-1].Seq); err != nil {
					return err
				}
			}
		}
		if len(change.Enqueue) > 0 {
			if done.Enqueued, err = s.enqueue(ctx, tx, sessionID, change.Enqueue); err != nil {
				return err
			}
		}
		if len(change.Dequeue) > 0 {
			if err := s.dequeue(ctx, tx, sessionID, change.Dequeue); err != nil {
				return err
			}
		}
		if change.Compaction != nil {
			if err := s.upsertCompaction(ctx, tx, sessionID, *change.Compaction); err != nil {
				return err
			}
		}
		if change.Vent != nil {
			v, err := s.updateVent(ctx, tx, *change.Vent)
			if err != nil {
				return err
			}
			done.Vent = &v
		}
		return nil
	})
	if err != nil {
		return albedo.Committed{}, fmt.Errorf("commit to session %s: %w", sessionID, s.failed(err, sessionID))
	}
	return done, nil
}

// itemsOnly reports whether change appends items and does nothing else.
func itemsOnly(change albedo.Commit) bool {
	return change.Session == nil && change.Vent == nil && change.Compaction == nil &&
		len(change.Enqueue) == 0 && len(change.Dequeue) == 0 &&
		len(change.Items) > 0 && len(change.Items) <= maxItemsPerStatement
}

// expectRevision fails with EStale unless the stored session id has the
// revision rev. Where the dialect locks rows, the session's stays locked
// until the transaction ends.
func (s *Store) expectRevision(ctx context.Context, tx *sql.Tx, id string, rev int64) error {
	var stored int64
	err := tx.QueryRowContext(ctx, "SELECT revision FROM sessions WHERE id = $1 "+s.d.LockRow, s.text(id)).Scan(&stored)
	if err == sql.ErrNoRows || (err == nil && stored != rev) {
		return albedo.Errorf(albedo.EStale, "session %s is not at revision %d", id, rev)
	}
	if err != nil {
		return fmt.Errorf("read the revision of session %s: %w", id, err)
	}
	return nil
}
