package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/albedo-agent/albedo/adapters/sqlstore"
)

// TestTransactionsEndInTheCaller: whatever becomes of its context, a
// transaction has given its connection back when sqlstore.RunInTx returns, so that
// Close closes every connection before it returns. A transaction that
// succeeded on a live context commits; any other rolls back.
func TestTransactionsEndInTheCaller(t *testing.T) {
	errFailed := errors.New("failed")
	tests := []struct {
		name string
		// body runs in the transaction; cancel cancels its context.
		body      func(cancel context.CancelFunc) error
		wantErr   error
		committed bool
	}{
		{"succeeds", func(context.CancelFunc) error { return nil }, nil, true},
		{"fails", func(context.CancelFunc) error { return errFailed }, errFailed, false},
		{"cancelled then fails", func(cancel context.CancelFunc) error { cancel(); return errFailed }, errFailed, false},
		{"cancelled then succeeds", func(cancel context.CancelFunc) error { cancel(); return nil }, context.Canceled, false},
	}
	s := openStore(t, testPath(t))
	exec(t, s.write.DB, "CREATE TABLE marks(name TEXT)")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Many rounds: database/sql's own rollback of a cancelled
			// transaction races with the caller, so one round could pass
			// by luck.
			for range 50 {
				ctx, cancel := context.WithCancel(context.Background())
				err := sqlstore.RunInTx(ctx, s.write, func(ctx context.Context, tx *sql.Tx) error {
					if _, err := tx.ExecContext(ctx, "INSERT INTO marks(name) VALUES (?)", tt.name); err != nil {
						return err
					}
					return tt.body(cancel)
				})
				cancel()
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if inUse := s.write.Stats().InUse; inUse != 0 {
					t.Fatalf("%d connections still in use after the transaction returned", inUse)
				}
			}
			var n int
			if err := s.write.QueryRow("SELECT count(*) FROM marks WHERE name = ?", tt.name).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if got := n > 0; got != tt.committed {
				t.Errorf("committed = %v (%d rows), want %v", got, n, tt.committed)
			}
		})
	}
}
