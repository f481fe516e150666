package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// DiffRange names the two checkpoints of a diff; nil takes the default.
type DiffRange struct {
	// From is a transcript item id: the files as a rewind to it would put
	// them (the snapshot before the first step after it); nil for 0, the
	// start.
	From *int64
	// To is a transcript item id: the files as the last step at or before
	// it left them; nil for the session's last item.
	To *int64
}

// Diffed is a diff between two checkpoints of a session.
type Diffed struct {
	From, To int64
	Files    []albedo.FileDiff
}

// Diff compares the files at two checkpoints of a session: what the
// steps from From to To changed (and what changed outside the session
// between them), each file with its line counts and its patch, within
// albedo.DefaultDiffBounds. The session may be running; the diff reads
// only snapshots its steps recorded.
func (s *Service) Diff(ctx context.Context, id string, r DiffRange) (Diffed, error) {
	if _, err := s.existing(ctx, id); err != nil {
		return Diffed{}, err
	}
	for _, seq := range []*int64{r.From, r.To} {
		if seq != nil && *seq < 0 {
			return Diffed{}, albedo.Errorf(albedo.EInvalid, "from and to must be transcript item ids, or 0 for the start, not %d", *seq)
		}
	}
	if s.checkpoints == nil {
		return Diffed{}, albedo.Errorf(albedo.EConflict, "this albedo takes no snapshots (no git on PATH): there is nothing to compare")
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return Diffed{}, err
	}
	items, err := s.store.Items(ctx, id, 0, 0)
	if err != nil {
		return Diffed{}, err
	}
	var last int64
	if len(items) > 0 {
		last = items[len(items)-1].Seq
	}
	out := Diffed{To: last}
	if r.From != nil {
		out.From = *r.From
	}
	if r.To != nil {
		out.To = *r.To
	}
	for _, seq := range []int64{out.From, out.To} {
		if seq > last {
			return Diffed{}, albedo.Errorf(albedo.ENotFound, "session %s has no item %d", id, seq)
		}
	}
	if out.From > out.To {
		return Diffed{}, albedo.Errorf(albedo.EInvalid, "from (%d) is after to (%d)", out.From, out.To)
	}
	steps := albedo.Steps(items)
	i := 0
	for i < len(steps) && steps[i].Seq <= out.From {
		i++
	}
	j := i
	for j < len(steps) && steps[j].Seq <= out.To {
		j++
	}
	if i == j {
		return out, nil
	}
	from, to := steps[i].Before, steps[j-1].After
	if from == "" {
		return Diffed{}, albedo.Errorf(albedo.EConflict, "no snapshot was taken before item %d: there is nothing to compare it with", steps[i].Seq)
	}
	out.Files, err = s.checkpoints.Diff(ctx, sess.Workspace, from, to, albedo.DefaultDiffBounds())
	if errors.Is(err, albedo.ErrSnapshotPruned) {
		return Diffed{}, pruned(fmt.Sprintf("checkpoint %d or %d", out.From, out.To))
	}
	return out, err
}

// pruned is the error of a rewind or a diff that needs a snapshot the
// checkpoints' bounds no longer keep: what names the checkpoint.
func pruned(what string) error {
	return &albedo.Error{Code: albedo.EConflict, Details: map[string]any{"pruned": true},
		Message: "the snapshot of " + what + " was pruned (older than the checkpoints' keepDays, or beyond their keepSnapshots): it can no longer be compared or rewound to"}
}
