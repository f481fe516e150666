package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// fenceSQL selects one row while the lease (session, owner, epoch) holds
// the session and has not expired by the database's clock, and keeps the
// lease row share-locked until the statement's transaction ends: a take
// of the lease waits for the change it fences, and a change that waited
// for a take sees the new epoch and no row. Its parameters are numbered
// from the three %d.
const fenceSQL = `SELECT 1 FROM leases WHERE session_id = $%d AND owner = $%d AND epoch = $%d AND expires_at > now() FOR SHARE`

// fenceArgs returns the fence's parameters for lease.
func (s *Store) fenceArgs(lease *albedo.Lease) []any {
	return []any{s.text(lease.SessionID), s.text(lease.Owner), lease.Epoch}
}

// checkLease fails with ELeaseLost unless lease still holds its session,
// keeping the lease row locked until tx ends.
func (s *Store) checkLease(ctx context.Context, tx *sql.Tx, lease *albedo.Lease) error {
	if !s.d.Leases {
		return albedo.Errorf(albedo.EInvalid, "this store keeps no leases")
	}
	var one int
	err := tx.QueryRowContext(ctx, fmt.Sprintf(fenceSQL, 1, 2, 3), s.fenceArgs(lease)...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return leaseLost(lease)
	}
	if err != nil {
		return fmt.Errorf("check the lease of session %s: %w", lease.SessionID, err)
	}
	return nil
}

// leaseLost is the error of a change fenced by a lease that no longer
// holds its session.
func leaseLost(lease *albedo.Lease) error {
	return albedo.Errorf(albedo.ELeaseLost, "this daemon no longer holds the lease of session %s (epoch %d): another took over its turn",
		lease.SessionID, lease.Epoch)
}
