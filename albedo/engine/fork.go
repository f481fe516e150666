package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/albedo-agent/albedo/albedo"
)

// BranchOutput is the output a fork gives a call it copied but never ran.
const BranchOutput = "not executed after branch checkpoint"

// Fork makes a new session from a session's transcript up to and including
// the checkpoint item, with the events of that prefix (errors and turn
// boundaries too). It keeps the title, provider, model, protocol and
// workspace; calls copied without their output get BranchOutput, so nothing
// is run again. The source is untouched and the branch has its own kernel.
func (s *Service) Fork(ctx context.Context, id string, checkpoint int64) (albedo.Session, error) {
	src, err := s.store.Session(ctx, id)
	if err != nil {
		return albedo.Session{}, err
	}
	if checkpoint <= 0 {
		return albedo.Session{}, albedo.Errorf(albedo.EInvalid, "checkpoint must be a positive tree item id")
	}
	items, err := s.store.Items(ctx, id, 0, 0)
	if err != nil {
		return albedo.Session{}, err
	}
	var prefix []albedo.Item
	found := false
	for _, it := range items {
		if it.Seq > checkpoint {
			// The images a checkpoint's cell showed belong to it.
			if found && it.Kind == albedo.KindToolImage && it.CallID == prefix[len(prefix)-1].CallID {
				prefix = append(prefix, it)
				continue
			}
			break
		}
		if it.Seq == checkpoint {
			_, found = albedo.NodeOf(it)
		}
		prefix = append(prefix, it)
	}
	if !found {
		return albedo.Session{}, albedo.Errorf(albedo.ENotFound, "session %s has no checkpoint %d", id, checkpoint)
	}
	if busy, _ := s.Running(ctx, id); busy && inFlight(items, checkpoint) {
		return albedo.Session{}, albedo.Errorf(albedo.EBusy, "checkpoint %d is still in flight: wait for the turn or pick an earlier one", checkpoint)
	}
	now := s.now()
	for _, call := range unansweredCalls(prefix) {
		prefix = append(prefix, albedo.Item{Kind: albedo.KindToolOutput, CallID: call.CallID, ToolName: call.ToolName, Text: BranchOutput, Timestamp: now})
	}
	for i := range prefix {
		prefix[i].Seq = 0
	}
	t := s.clock.Now()
	branch := src
	branch.ID = newID()
	branch.Stage = albedo.StageIdle
	branch.ParentID = src.ID
	branch.Checkpoint = checkpoint
	branch.KernelUsed = slices.ContainsFunc(prefix, func(it albedo.Item) bool { return it.Kind == albedo.KindToolCall })
	branch.Name = ""
	branch.Revision = 1
	branch.CreatedAt, branch.UpdatedAt = t, t
	if _, err := s.store.Commit(ctx, albedo.Commit{Session: &branch, Items: prefix}); err != nil {
		return albedo.Session{}, fmt.Errorf("fork session %s at %d: %w", id, checkpoint, err)
	}
	return branch, nil
}

// inFlight reports whether the checkpoint is a call of a running turn that
// has no output yet.
func inFlight(items []albedo.Item, checkpoint int64) bool {
	for _, call := range unansweredCalls(items) {
		if call.Seq == checkpoint {
			return true
		}
	}
	return false
}
