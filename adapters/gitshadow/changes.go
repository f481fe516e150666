package gitshadow

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// Changes lists the paths that differ between two snapshots.
func (s *Shadows) Changes(ctx context.Context, workspace, from, to string) ([]albedo.FileChange, error) {
	if from == to {
		return nil, nil
	}
	sh, unlock, err := s.open(ctx, workspace)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := sh.kept(from, to); err != nil {
		return nil, err
	}
	return sh.changes(ctx, from, to)
}

// changes lists the paths that differ between two snapshots, in git's
// order.
func (sh *shadow) changes(ctx context.Context, from, to string) ([]albedo.FileChange, error) {
	args := append(append([]string{"diff-tree", "-z", "--name-status"}, diffOptions...), from, to)
	out, err := sh.run(ctx, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("compare snapshots %s and %s of %s: %w", from, to, sh.workspace, err)
	}
	fields := splitNul(out)
	var changes []albedo.FileChange
	for i := 0; i+1 < len(fields); i += 2 {
		kind := albedo.FileModified
		switch fields[i] {
		case "A":
			kind = albedo.FileCreated
		case "D":
			kind = albedo.FileDeleted
		}
		changes = append(changes, albedo.FileChange{Path: fields[i+1], Kind: kind})
	}
	return changes, nil
}
