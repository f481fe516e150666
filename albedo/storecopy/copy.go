// Package storecopy copies everything one albedo store holds into another:
// a home's SQLite store into PostgreSQL and back (albedo store copy). It
// works through the Store port, so it copies between any two stores.
package storecopy

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/albedo-agent/albedo/albedo"
)

// Target is a store a copy writes into: besides the port, it takes a vent
// as it is, its ID, revision and times kept (the vents' IDs are what
// people and the CLI name them by).
type Target interface {
	albedo.Store
	ImportVent(ctx context.Context, v albedo.Vent) error
}

// itemBatch is how many items one commit to the target carries.
const itemBatch = 64

// Copy copies every session (with its transcript, queued messages,
// compaction state and request ledger) and every vent of from into to,
// then verifies the copy (see Verify). No process may write to either
// store meanwhile.
//
// A copy that was interrupted resumes where it stopped when run again:
// sessions already in to are not written again, a transcript goes on after
// its last copied item, and ledger rows and vents already there are
// skipped. Sessions keep their revisions and times and items their Seq
// and times; queued messages and ledger rows keep their order and are
// numbered by to. A target holding a session the source lacks is refused:
// a copy goes into an empty store, or one an earlier copy of the same
// source filled.
func Copy(ctx context.Context, from albedo.Store, to Target, progress io.Writer) (Summary, error) {
	sessions, err := from.Sessions(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("list the source's sessions: %w", err)
	}
	have, err := to.Sessions(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("list the target's sessions: %w", err)
	}
	known := make(map[string]bool, len(sessions))
	for _, s := range sessions {
		known[s.ID] = true
	}
	copied := make(map[string]bool, len(have))
	for _, s := range have {
		if !known[s.ID] {
			return Summary{}, albedo.Errorf(albedo.EInvalid, "the target holds session %s, which the source does not: copy into an empty store", s.ID)
		}
		copied[s.ID] = true
	}
	// Oldest first, so that an interrupted copy has the oldest sessions.
	slices.Reverse(sessions)
	for i, s := range sessions {
		if err := copySession(ctx, from, to, s, copied[s.ID]); err != nil {
			return Summary{}, err
		}
		fmt.Fprintf(progress, "copied session %d of %d: %s\n", i+1, len(sessions), s.ID)
	}
	vents, err := copyVents(ctx, from, to)
	if err != nil {
		return Summary{}, err
	}
	fmt.Fprintf(progress, "copied %d vents\n", vents)
	return Verify(ctx, from, to)
}

// copySession copies one session, going on after what an earlier copy
// wrote when started is true.
func copySession(ctx context.Context, from albedo.Store, to Target, s albedo.Session, started bool) error {
	if !started {
		queued, err := from.Queued(ctx, s.ID)
		if err != nil {
			return fmt.Errorf("read the queued messages of session %s: %w", s.ID, err)
		}
		// The session and its queue land together: a session in the
		// target has its queue.
		if _, err := to.Commit(ctx, albedo.Commit{Session: &s, Enqueue: queued}); err != nil {
			return fmt.Errorf("copy session %s: %w", s.ID, err)
		}
	}
	if err := copyItems(ctx, from, to, s.ID); err != nil {
		return err
	}
	state, err := from.Compaction(ctx, s.ID)
	switch {
	case albedo.ErrorCode(err) == albedo.ENotFound:
	case err != nil:
		return fmt.Errorf("read the compaction state of session %s: %w", s.ID, err)
	default:
		if err := to.SaveCompaction(ctx, state); err != nil {
			return fmt.Errorf("copy the compaction state of session %s: %w", s.ID, err)
		}
	}
	return copyRequests(ctx, from, to, s.ID)
}

// copyItems appends the items of session id that to lacks, in batches.
// Each keeps its Seq: a transcript is numbered 1, 2, ... without gaps,
// and a store numbers appended items after its last one.
func copyItems(ctx context.Context, from albedo.Store, to Target, id string) error {
	last, err := to.ItemPage(ctx, id, albedo.ItemQuery{Limit: 1, Newest: true, SeqOnly: true})
	if err != nil {
		return fmt.Errorf("find the last copied item of session %s: %w", id, err)
	}
	var after int64
	if len(last) > 0 {
		after = last[0].Seq
	}
	for {
		page, err := from.ItemPage(ctx, id, albedo.ItemQuery{After: after, Limit: itemBatch, Images: true})
		if err != nil {
			return fmt.Errorf("read the items of session %s after %d: %w", id, after, err)
		}
		if len(page) == 0 {
			return nil
		}
		done, err := to.Commit(ctx, albedo.Commit{SessionID: id, Items: page})
		if err != nil {
			return fmt.Errorf("copy the items of session %s after %d: %w", id, after, err)
		}
		for i := range page {
			if done.Items[i].Seq != page[i].Seq {
				return albedo.Errorf(albedo.EInternal, "item %d of session %s was stored as item %d: the source's transcript has a gap",
					page[i].Seq, id, done.Items[i].Seq)
			}
		}
		after = page[len(page)-1].Seq
	}
}

// copyRequests appends the ledger rows of session id that to lacks: those
// after as many as it has.
func copyRequests(ctx context.Context, from albedo.Store, to Target, id string) error {
	rows, err := from.Requests(ctx, id, 0, 0)
	if err != nil {
		return fmt.Errorf("read the request ledger of session %s: %w", id, err)
	}
	have, err := to.Requests(ctx, id, 0, 0)
	if err != nil {
		return fmt.Errorf("read the copied request ledger of session %s: %w", id, err)
	}
	if len(have) > len(rows) {
		return albedo.Errorf(albedo.EInvalid, "the target's session %s has more ledger rows than the source's", id)
	}
	for _, row := range rows[len(have):] {
		if _, err := to.AppendRequest(ctx, row); err != nil {
			return fmt.Errorf("copy a ledger row of session %s: %w", id, err)
		}
	}
	return nil
}

// copyVents imports every vent of from into to and returns how many there
// are.
func copyVents(ctx context.Context, from albedo.Store, to Target) (int, error) {
	vents, err := from.Vents(ctx, 0, 0)
	if err != nil {
		return 0, fmt.Errorf("read the source's vents: %w", err)
	}
	// Oldest first, so that an interrupted copy has the oldest vents.
	slices.Reverse(vents)
	for _, v := range vents {
		if err := to.ImportVent(ctx, v); err != nil {
			return 0, err
		}
	}
	return len(vents), nil
}
