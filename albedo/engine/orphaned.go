package engine

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// orphanedAfter is how many lease times a running session's lease must
// have been expired before it is shown orphaned: every process sharing
// the store looks for such sessions four times per lease time and takes
// over those whose workspace it has, so one still untaken by then has
// none that can.
const orphanedAfter = 2

// orphanedGlance returns the "orphaned" glance of a running session that
// no process sharing the store runs, and that none took over within
// orphanedAfter lease times of its lease's expiry: no daemon has its
// workspace. It names the workspace, the node that ran the session last
// and how long ago its lease expired. ok is false for any other session,
// and always without leases.
func (s *Service) orphanedGlance(ctx context.Context, sess albedo.Session) (g albedo.Glance, ok bool, err error) {
	if s.leases == nil || sess.Stage != albedo.StageRunning {
		return nil, false, nil
	}
	h, err := s.leases.port.Holding(ctx, sess.ID)
	if err != nil {
		return nil, false, fmt.Errorf("read the lease of session %s: %w", sess.ID, err)
	}
	if h.Node != "" || h.Expired < orphanedAfter*s.leases.port.TTL() {
		return nil, false, nil
	}
	g = albedo.Glance{"extension": "orphaned", "workspace": sess.Workspace, "expired_ms": float64(h.Expired.Milliseconds())}
	if h.Last != "" {
		g["last_node"] = h.Last
	}
	return g, true, nil
}
