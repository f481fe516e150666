package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// leaseTTL is long enough that no lease of these tests expires by
// itself: they expire one by moving its expiry into the past.
const leaseTTL = time.Hour

// leased opens a store on a database of its own with a session "s" in
// it, and returns it with its URL.
func leased(t *testing.T, stage albedo.Stage) (*Store, string) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	sess := newSession("s")
	sess.Stage = stage
	mustCommit(t, s, albedo.Commit{Session: &sess})
	return s, url
}

// expire moves the expiry of every lease into the past, as if its owner
// had stopped renewing it.
func expire(t *testing.T, url string) {
	t.Helper()
	pgtest.Exec(t, url, `UPDATE leases SET expires_at = now() - interval '1 second'`)
}

// take takes the session's lease, failing the test on error.
func take(t *testing.T, l *Leases, id string) (albedo.Lease, bool) {
	t.Helper()
	lease, ok, err := l.Take(context.Background(), id)
	if err != nil {
		t.Fatalf("Take(%s): %v", id, err)
	}
	return lease, ok
}

func TestALeaseIsHeldByOneOwnerUntilItExpires(t *testing.T) {
	s, url := leased(t, albedo.StageRunning)
	a, b := newLeases(s, "node-a"), newLeases(s, "node-b")

	first, ok := take(t, a, "s")
	if !ok || first.Epoch != 1 || first.Owner != a.Owner() || first.Node != "node-a" {
		t.Fatalf("first take = %+v, %v; want epoch 1 held by a", first, ok)
	}
	if _, ok := take(t, b, "s"); ok {
		t.Fatal("b took a live lease a holds")
	}
	// Its own live lease (one it could not release) a takes again, at a
	// new epoch.
	if again, ok := take(t, a, "s"); !ok || again.Epoch != 2 {
		t.Fatalf("a's take of its own lease = %+v, %v; want epoch 2", again, ok)
	}
	first.Epoch = 2
	expire(t, url)
	second, ok := take(t, b, "s")
	if !ok || second.Epoch != 3 || second.Owner != b.Owner() {
		t.Fatalf("take after expiry = %+v, %v; want epoch 3 held by b", second, ok)
	}

	ctx := context.Background()
	if held, err := a.Renew(ctx); err != nil || len(held) != 0 {
		t.Fatalf("stale owner's Renew = %v, %v; want nothing renewed", held, err)
	}
	if err := a.Release(ctx, first); err != nil {
		t.Fatal(err)
	}
	if held, err := b.Renew(ctx); err != nil || len(held) != 1 || held[0] != second {
		t.Fatalf("b's Renew after a's stale release = %v, %v; want b's lease %+v", held, err, second)
	}
	if err := b.Release(ctx, second); err != nil {
		t.Fatal(err)
	}
	if held, err := b.Renew(ctx); err != nil || len(held) != 0 {
		t.Fatalf("Renew after Release = %v, %v; want nothing", held, err)
	}
	if third, ok := take(t, a, "s"); !ok || third.Epoch != 4 {
		t.Fatalf("take after release = %+v, %v; want epoch 4", third, ok)
	}
}

func TestAnExpiredLeaseIsNotRenewed(t *testing.T) {
	s, url := leased(t, albedo.StageRunning)
	a := newLeases(s, "a")
	take(t, a, "s")
	expire(t, url)
	if held, err := a.Renew(context.Background()); err != nil || len(held) != 0 {
		t.Fatalf("Renew of an expired lease = %v, %v; want nothing: its owner stopped trusting it", held, err)
	}
}

func TestTakingTheLeaseOfAMissingSessionIsNotFound(t *testing.T) {
	s := newStore(t)
	_, _, err := newLeases(s, "a").Take(context.Background(), "missing")
	wantCode(t, err, albedo.ENotFound)
}

func TestRacingTakesGiveOneOwner(t *testing.T) {
	s, url := leased(t, albedo.StageRunning)
	take(t, newLeases(s, "gone"), "s")
	expire(t, url)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		wins []albedo.Lease
	)
	for i := range 8 {
		l := newLeases(s, fmt.Sprintf("n%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			lease, ok, err := l.Take(context.Background(), "s")
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				wins = append(wins, lease)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(wins) != 1 || wins[0].Epoch != 2 {
		t.Fatalf("winners = %+v; want one, at epoch 2", wins)
	}
}

func TestAFencedCommitLandsOnlyUnderTheLiveLease(t *testing.T) {
	item := albedo.Item{Kind: albedo.KindAssistant, Text: "hello", Timestamp: 1}
	for _, tc := range []struct {
		name   string
		change func(lease *albedo.Lease) albedo.Commit
	}{
		{"items alone, in one statement", func(lease *albedo.Lease) albedo.Commit {
			return albedo.Commit{SessionID: "s", Items: []albedo.Item{item}, Lease: lease}
		}},
		{"items and the session row, in a transaction", func(lease *albedo.Lease) albedo.Commit {
			sess := newSession("s")
			sess.Stage, sess.Revision = albedo.StageRunning, 2
			return albedo.Commit{Session: &sess, Items: []albedo.Item{item}, Lease: lease}
		}},
		{"more items than one statement takes", func(lease *albedo.Lease) albedo.Commit {
			items := make([]albedo.Item, 1001)
			for i := range items {
				items[i] = item
			}
			return albedo.Commit{SessionID: "s", Items: items, Lease: lease}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, url := leased(t, albedo.StageRunning)
			ctx := context.Background()
			a, b := newLeases(s, "a"), newLeases(s, "b")
			old, _ := take(t, a, "s")
			mustCommit(t, s, tc.change(&old))

			expire(t, url)
			_, err := s.Commit(ctx, tc.change(&old))
			wantCode(t, err, albedo.ELeaseLost)

			fresh, ok := take(t, b, "s")
			if !ok {
				t.Fatal("b could not take the expired lease")
			}
			before, _ := s.Items(ctx, "s", 0, 0)
			_, err = s.Commit(ctx, tc.change(&old))
			wantCode(t, err, albedo.ELeaseLost)
			if after, _ := s.Items(ctx, "s", 0, 0); len(after) != len(before) {
				t.Fatalf("the stale owner's commit added %d items", len(after)-len(before))
			}
			done := mustCommit(t, s, tc.change(&fresh))
			if want := int64(len(before) + 1); done.Items[0].Seq != want {
				t.Fatalf("the new owner's first item has seq %d, want %d", done.Items[0].Seq, want)
			}
		})
	}
}

func TestOrphansAreRunningSessionsWithoutALiveLease(t *testing.T) {
	s, url := leased(t, albedo.StageRunning)
	idle := newSession("idle")
	mustCommit(t, s, albedo.Commit{Session: &idle})
	ctx := context.Background()
	a := newLeases(s, "a")
	orphans := func() []albedo.Orphan {
		t.Helper()
		o, err := a.Orphans(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	want := albedo.Orphan{SessionID: "s", Workspace: "/work/s"}
	if got := orphans(); len(got) != 1 || got[0] != want {
		t.Fatalf("orphans of a running session with no lease = %v, want [%v]", got, want)
	}
	take(t, a, "s")
	if got := orphans(); len(got) != 0 {
		t.Fatalf("orphans with the lease held = %v, want none", got)
	}
	expire(t, url)
	if got := orphans(); len(got) != 1 || got[0] != want {
		t.Fatalf("orphans with the lease expired = %v, want [%v]", got, want)
	}
}

func TestOrphansSkipsASessionWhoseRowACommitHoldsLocked(t *testing.T) {
	s, _ := leased(t, albedo.StageRunning)
	ctx := context.Background()
	tx, err := s.db.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE", []byte("s")); err != nil {
		t.Fatal(err)
	}
	a := newLeases(s, "a")
	if got, err := a.Orphans(ctx); err != nil || len(got) != 0 {
		t.Fatalf("orphans while a commit holds the session's row = %v, %v; want none, at once", got, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Orphans(ctx); err != nil || len(got) != 1 {
		t.Fatalf("orphans once the row is free = %v, %v; want the session", got, err)
	}
}

// newLeases returns the leases of a new owner shown as node.
func newLeases(s *Store, node string) *Leases { return s.Leases(NewOwner(), node, leaseTTL) }

func TestAnOwnersNextRunReleasesItsEarlierLeases(t *testing.T) {
	s, _ := leased(t, albedo.StageRunning)
	owner := NewOwner()
	dead := s.Leases(owner, "a", leaseTTL)
	take(t, dead, "s")
	next := s.Leases(owner, "a", leaseTTL)
	if err := next.ReleaseAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if lease, ok := take(t, next, "s"); !ok || lease.Epoch != 2 {
		t.Fatalf("take after the earlier run's release = %+v, %v; want epoch 2", lease, ok)
	}
}
