package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// Commit applies one change in a single transaction: the session is upserted
// when given, then items are appended, messages enqueued and dequeued, all
// for change.SessionID (Session.ID by default). Items or messages for a
// session that does not exist are ENotFound, and nothing of the change
// lands. Zero session times are stored as the current time. A vent in the
// change is written as UpdateVent writes it, and a compaction state as
// SaveCompaction writes it, in the same transaction.
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
	var row *sessionRow
	if change.Session != nil {
		r := newSessionRow(change.Session, time.Now())
		row = &r
	}
	// Commits run one at a time, like every write: there is one writing
	// connection.
	s.writing.Lock()
	defer s.writing.Unlock()
	var done albedo.Committed
	err := runInTx(ctx, s.write, func(ctx context.Context, tx bun.Tx) error {
		if row != nil && change.Expect != 0 {
			if err := expectRevision(ctx, tx, row.ID, change.Expect); err != nil {
				return err
			}
		}
		if row != nil {
			if err := upsertSession(ctx, tx, row); err != nil {
				return err
			}
		}
		if len(change.Items) > 0 || len(change.Enqueue) > 0 || change.Compaction != nil {
			if change.Session == nil || change.Session.ID != sessionID {
				ok, err := sessionExists(ctx, tx.Tx, sessionID)
				if err != nil {
					return err
				}
				if !ok {
					return sessionNotFound(sessionID)
				}
			}
		}
		if len(change.Items) > 0 {
			items, err := appendItems(ctx, tx, sessionID, change.Items)
			if err != nil {
				return err
			}
			done.Items = items
		}
		if len(change.Enqueue) > 0 {
			queued, err := enqueue(ctx, tx, sessionID, change.Enqueue)
			if err != nil {
				return err
			}
			done.Enqueued = queued
		}
		if len(change.Dequeue) > 0 {
			if err := dequeue(ctx, tx, sessionID, change.Dequeue); err != nil {
				return err
			}
		}
		if change.Compaction != nil {
			if err := upsertCompaction(ctx, tx, sessionID, *change.Compaction); err != nil {
				return err
			}
		}
		if change.Vent != nil {
			v, err := updateVent(ctx, tx, *change.Vent)
			if err != nil {
				return err
			}
			done.Vent = &v
		}
		return nil
	})
	if err != nil {
		return albedo.Committed{}, fmt.Errorf("commit to session %s: %w", sessionID, unavailable(err))
	}
	return done, nil
}

// expectRevision fails with EStale unless the stored session id has the
// revision rev.
func expectRevision(ctx context.Context, tx bun.Tx, id string, rev int64) error {
	var stored []int64
	err := tx.NewSelect().Table("sessions").Column("revision").Where("id = ?", id).Scan(ctx, &stored)
	if err != nil {
		return fmt.Errorf("read the revision of session %s: %w", id, err)
	}
	if len(stored) == 0 || stored[0] != rev {
		return albedo.Errorf(albedo.EStale, "session %s is not at revision %d", id, rev)
	}
	return nil
}
