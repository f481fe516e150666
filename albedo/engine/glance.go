package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// Glances returns a session's sidebar: its model, the replies to its
// vents that wait for its next turn, the sandbox its kernel runs under
// (when albedo has one), what is wrong with its context window or the
// model catalog ("context"), the instruction files its last turn
// skipped ("instructions"), why its workspace takes no snapshots
// ("snapshots", when it takes none), how many background jobs its kernel
// runs ("jobs", when any), and that no process sharing the store could
// take its turn over ("orphaned"). Open vents never appear there: they
// are the user's to triage, not the session's.
func (s *Service) Glances(ctx context.Context, id string) ([]albedo.Glance, error) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	glances := []albedo.Glance{{"extension": "model", "provider": sess.Provider, "model": sess.Model, "protocol": string(sess.Protocol)}}
	n, err := s.PendingReplies(ctx, id)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		glances = append(glances, albedo.Glance{"extension": albedo.ReplySource, "pending_replies": float64(n)})
	}
	if problems := s.window(ctx, sess).problems; len(problems) > 0 {
		glances = append(glances, albedo.Glance{"extension": "context", "problems": anyList(problems)})
	}
	if warnings := s.state(id).instructionWarnings(); len(warnings) > 0 {
		glances = append(glances, albedo.Glance{"extension": "instructions", "warnings": anyList(warnings)})
	}
	if st, ok := s.sessionSandbox(ctx, id); ok {
		glances = append(glances, sandboxGlance(st))
	}
	if g, ok := s.snapshotsGlance(id); ok {
		glances = append(glances, g)
	}
	if n := s.kernel.RunningJobs(id); n > 0 {
		glances = append(glances, albedo.Glance{"extension": "jobs", "running": float64(n)})
	}
	g, ok, err := s.orphanedGlance(ctx, sess)
	if err != nil {
		return nil, err
	}
	if ok {
		glances = append(glances, g)
	}
	return glances, nil
}
