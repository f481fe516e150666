package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// compactionRules reads and checks the compaction settings: the defaults
// when the service has no source.
func (s *Service) compactionRules(ctx context.Context) albedo.CompactionRules {
	if s.compactFrom == nil {
		return albedo.CompactionSettings{}.Rules()
	}
	return s.compactFrom.CompactionSettings(ctx).Rules()
}
