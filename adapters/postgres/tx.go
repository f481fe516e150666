package postgres

import (
	"context"
	"database/sql"
)

// runInTx runs fn in a transaction on db, committing when fn succeeds and
// ctx is still live, else rolling back. The transaction is begun without
// ctx's cancellation, so that it ends in the calling goroutine rather than
// in one database/sql starts to roll it back when ctx is cancelled; fn's
// statements still run on ctx, so cancelling it interrupts them.
func runInTx(ctx context.Context, db *sql.DB, opts *sql.TxOptions, fn func(ctx context.Context, tx *sql.Tx) error) error {
	tx, err := db.BeginTx(context.WithoutCancel(ctx), opts)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	if err := fn(ctx, tx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	done = true
	return tx.Commit()
}
