package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/jackc/pgx/v5/pgconn"
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
	now := time.Now()
	s.writing.Lock()
	defer s.writing.Unlock()
	if itemsOnly(change) {
		// One statement is atomic by itself: no transaction to begin and
		// commit, one round trip.
		items, err := appendItems(ctx, s.sqlDB(), sessionID, change.Items)
		if err != nil {
			return albedo.Committed{}, fmt.Errorf("commit to session %s: %w", sessionID, missingSession(unavailable(err), sessionID))
		}
		return albedo.Committed{Items: items}, nil
	}
	var done albedo.Committed
	err := runInTx(ctx, s.sqlDB(), nil, func(ctx context.Context, tx *sql.Tx) error {
		if change.Session != nil && change.Expect != 0 {
			if err := expectRevision(ctx, tx, change.Session.ID, change.Expect); err != nil {
				return err
			}
		}
		if change.Session != nil {
			if err := upsertSession(ctx, tx, change.Session, now); err != nil {
				return err
			}
		}
		// Items, messages and compaction states of a missing session
		// fail on their foreign key (see missingSession).
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
		return albedo.Committed{}, fmt.Errorf("commit to session %s: %w", sessionID, missingSession(unavailable(err), sessionID))
	}
	return done, nil
}

// itemsOnly reports whether change appends items and does nothing else.
func itemsOnly(change albedo.Commit) bool {
	return change.Session == nil && change.Vent == nil && change.Compaction == nil &&
		len(change.Enqueue) == 0 && len(change.Dequeue) == 0 &&
		len(change.Items) > 0 && len(change.Items) <= maxItemsPerStatement
}

// missingSession turns the foreign key violation of a row written for a
// session that does not exist into ENotFound. Other errors are returned as
// they are.
func missingSession(err error, id string) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "23503" && pg.ConstraintName != "" {
		return sessionNotFound(id)
	}
	return err
}

// expectRevision fails with EStale unless the stored session id has the
// revision rev. It locks the session's row until the transaction ends.
func expectRevision(ctx context.Context, tx *sql.Tx, id string, rev int64) error {
	var stored int64
	err := tx.QueryRowContext(ctx, "SELECT revision FROM sessions WHERE id = $1 FOR UPDATE", bin(id)).Scan(&stored)
	if err == sql.ErrNoRows || (err == nil && stored != rev) {
		return albedo.Errorf(albedo.EStale, "session %s is not at revision %d", id, rev)
	}
	if err != nil {
		return fmt.Errorf("read the revision of session %s: %w", id, err)
	}
	return nil
}
