package storecopy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"

	"github.com/albedo-agent/albedo/albedo"
)

// Summary says what a verified copy holds.
type Summary struct {
	Sessions, Items, Requests, Vents int
}

// Verify checks that to holds what from holds: each session as it is,
// each transcript with as many items and the same hash (every field of
// every item, byte for byte), the same compaction states, ledger rows and
// queued messages (but for their IDs), and the same vents. The first
// difference is an error naming it.
func Verify(ctx context.Context, from albedo.Store, to albedo.Store) (Summary, error) {
	var sum Summary
	sessions, err := from.Sessions(ctx)
	if err != nil {
		return sum, fmt.Errorf("list the source's sessions: %w", err)
	}
	copies, err := to.Sessions(ctx)
	if err != nil {
		return sum, fmt.Errorf("list the target's sessions: %w", err)
	}
	if len(copies) != len(sessions) {
		return sum, differs("the number of sessions", len(sessions), len(copies))
	}
	for _, s := range sessions {
		if err := verifySession(ctx, from, to, s, &sum); err != nil {
			return sum, err
		}
	}
	vents, err := from.Vents(ctx, 0, 0)
	if err != nil {
		return sum, fmt.Errorf("read the source's vents: %w", err)
	}
	copied, err := to.Vents(ctx, 0, 0)
	if err != nil {
		return sum, fmt.Errorf("read the target's vents: %w", err)
	}
	if a, b := digest(vents), digest(copied); a != b {
		return sum, differs("the vents", a, b)
	}
	sum.Sessions, sum.Vents = len(sessions), len(vents)
	return sum, nil
}

// verifySession checks the copy of session s and adds it to sum.
func verifySession(ctx context.Context, from, to albedo.Store, s albedo.Session, sum *Summary) error {
	c, err := to.Session(ctx, s.ID)
	if err != nil {
		return fmt.Errorf("read the copy of session %s: %w", s.ID, err)
	}
	if a, b := digest(s), digest(c); a != b {
		return differs("session "+s.ID, a, b)
	}
	n, hash, err := transcriptHash(ctx, from, s.ID)
	if err != nil {
		return err
	}
	m, copyHash, err := transcriptHash(ctx, to, s.ID)
	if err != nil {
		return err
	}
	if n != m {
		return differs("the number of items of session "+s.ID, n, m)
	}
	if hash != copyHash {
		return differs("the transcript hash of session "+s.ID, hash, copyHash)
	}
	sum.Items += n
	rest := []struct {
		what string
		read func(albedo.Store) (any, error)
	}{
		{"compaction state", func(st albedo.Store) (any, error) {
			c, err := st.Compaction(ctx, s.ID)
			if albedo.ErrorCode(err) == albedo.ENotFound {
				return nil, nil
			}
			return c, err
		}},
		{"request ledger", func(st albedo.Store) (any, error) {
			rows, err := st.Requests(ctx, s.ID, 0, 0)
			for i := range rows {
				rows[i].ID = 0
			}
			return rows, err
		}},
		{"queued messages", func(st albedo.Store) (any, error) {
			msgs, err := st.Queued(ctx, s.ID)
			for i := range msgs {
				msgs[i].ID = 0
			}
			return msgs, err
		}},
	}
	for _, r := range rest {
		a, err := r.read(from)
		if err != nil {
			return fmt.Errorf("read the %s of session %s: %w", r.what, s.ID, err)
		}
		b, err := r.read(to)
		if err != nil {
			return fmt.Errorf("read the copied %s of session %s: %w", r.what, s.ID, err)
		}
		if da, db := digest(a), digest(b); da != db {
			return differs("the "+r.what+" of session "+s.ID, da, db)
		}
		if rows, ok := a.([]albedo.RequestRow); ok {
			sum.Requests += len(rows)
		}
	}
	return nil
}

// transcriptHash reads the transcript of session id page by page and
// returns how many items it has and their hash.
func transcriptHash(ctx context.Context, st albedo.Store, id string) (int, string, error) {
	h := sha256.New()
	var (
		n     int
		after int64
	)
	for {
		page, err := st.ItemPage(ctx, id, albedo.ItemQuery{After: after, Limit: itemBatch, Images: true})
		if err != nil {
			return 0, "", fmt.Errorf("read the items of session %s after %d: %w", id, after, err)
		}
		if len(page) == 0 {
			return n, hex.EncodeToString(h.Sum(nil)), nil
		}
		for i := range page {
			write(h, reflect.ValueOf(page[i]))
		}
		n += len(page)
		after = page[len(page)-1].Seq
	}
}

// differs is the error for a copy whose what is b where the source's is a.
func differs(what string, a, b any) error {
	return albedo.Errorf(albedo.EInternal, "the copy differs from the source: %s is %v in the source and %v in the copy", what, a, b)
}
