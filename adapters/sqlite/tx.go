package sqlite

import (
	"context"

	"github.com/uptrace/bun"
)

// runInTx runs fn in a transaction on db, committing when fn succeeds and
// ctx is still live, else rolling back. Unlike bun's RunInTx, the
// transaction ends in the calling goroutine even when ctx is cancelled: a
// transaction begun on ctx itself is rolled back by database/sql in a
// goroutine of its own, which returns the connection to its pool after the
// caller has gone on. A store closed meanwhile then closes that connection
// later, and the last connection of a database folds the write-ahead log
// in under an exclusive lock, so a store opened right after Close could
// find the file locked. fn's statements still run on ctx, so cancelling it
// interrupts them.
func runInTx(ctx context.Context, db *bun.DB, fn func(ctx context.Context, tx bun.Tx) error) error {
	tx, err := db.BeginTx(context.WithoutCancel(ctx), nil)
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
