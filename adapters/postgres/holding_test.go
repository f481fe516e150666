package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

func TestHoldersAndHoldingNameTheNodeOfALiveLeaseOnly(t *testing.T) {
	s, url := leased(t, albedo.StageRunning)
	ctx := context.Background()
	a := newLeases(s, "node-a")
	// A session that never had a lease: no node, and its age (the
	// session was written in 2023) counts as how long none has held it.
	h, err := a.Holding(ctx, "s")
	if err != nil || h.Node != "" || h.Last != "" || h.Expired < 24*time.Hour {
		t.Fatalf("Holding before any lease = %+v, %v; want no node, expired since the session was written", h, err)
	}

	take(t, a, "s")
	holders, err := a.Holders(ctx)
	if err != nil || len(holders) != 1 || holders["s"] != "node-a" {
		t.Fatalf("Holders = %v, %v; want s on node-a", holders, err)
	}
	if h, err := a.Holding(ctx, "s"); err != nil || h != (albedo.Holding{Node: "node-a", Last: "node-a"}) {
		t.Fatalf("Holding of a live lease = %+v, %v", h, err)
	}

	pgtest.Exec(t, url, `UPDATE leases SET expires_at = now() - interval '30 seconds'`)
	if holders, err := a.Holders(ctx); err != nil || len(holders) != 0 {
		t.Fatalf("Holders with the lease expired = %v, %v; want none", holders, err)
	}
	h, err = a.Holding(ctx, "s")
	if err != nil || h.Node != "" || h.Last != "node-a" || h.Expired < 30*time.Second || h.Expired > time.Hour {
		t.Fatalf("Holding of an expired lease = %+v, %v; want last node-a, expired about 30 s ago", h, err)
	}

	if _, err := a.Holding(ctx, "missing"); albedo.ErrorCode(err) != albedo.ENotFound {
		t.Fatalf("Holding of a missing session: %v; want not_found", err)
	}
}
