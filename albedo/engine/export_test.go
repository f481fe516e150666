package engine

import (
	"context"
	"encoding/json"

	"github.com/albedo-agent/albedo/albedo"
)

// IncrementalProjection exposes a session's projection cache to the
// external tests: Project is what a model request of the session gets.
type IncrementalProjection struct{ c projectionCache }

// Project projects items as the next request of the session would.
func (p *IncrementalProjection) Project(items []albedo.Item, comp *albedo.Compaction, ep albedo.Endpoint) []json.RawMessage {
	return p.c.project(items, comp, ep)
}

// Drop forgets what was kept, as when the transcript cache is dropped.
func (p *IncrementalProjection) Drop() { p.c.drop() }

// Kept is how many transcript items the kept projection covers.
func (p *IncrementalProjection) Kept() int {
	p.c.mu.Lock()
	defer p.c.mu.Unlock()
	if p.c.kept == nil {
		return 0
	}
	return p.c.kept.n
}

// NextRequestTokens is the compaction decision's measure of the next
// request of a session over items (see autoCompact).
func NextRequestTokens(ctx context.Context, s *Service, id string, items []albedo.Item, req albedo.ModelRequest) (int64, error) {
	return s.nextRequestTokens(ctx, id, items, req)
}

// StopIdleKernels runs one round of the idle-kernel reaper now.
func StopIdleKernels(ctx context.Context, s *Service) { s.stopIdleKernels(ctx) }
