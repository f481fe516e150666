package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/albedo/projection"
)

// errNothingToCompact says that a transcript has no unit to evict: the
// newest unit is never cut.
var errNothingToCompact = albedo.Errorf(albedo.EConflict, "nothing to compact: only the newest message and its answer are left")

// compaction returns the session's compaction state when it applies to
// items, and whether it does.
func (s *Service) compaction(ctx context.Context, id string, items []albedo.Item) (albedo.Compaction, bool, error) {
	c, err := s.store.Compaction(ctx, id)
	if albedo.ErrorCode(err) == albedo.ENotFound {
		return albedo.Compaction{}, false, nil
	}
	if err != nil {
		return albedo.Compaction{}, false, fmt.Errorf("read compaction state of session %s: %w", id, err)
	}
	_, ok := compaction.CutIndex(c, items)
	return c, ok, nil
}

// projectInput projects items for ep, starting from the session's summary
// when it has a compaction state that applies.
// What the session's last request projected is kept and extended (see
// projectionCache).
func (s *Service) projectInput(ctx context.Context, id string, items []albedo.Item, ep albedo.Endpoint) ([]json.RawMessage, error) {
	c, err := s.store.Compaction(ctx, id)
	var comp *albedo.Compaction
	switch {
	case err == nil:
		comp = &c
	case albedo.ErrorCode(err) != albedo.ENotFound:
		return nil, fmt.Errorf("read compaction state of session %s: %w", id, err)
	}
	return s.state(id).cache.projected.project(items, comp, ep), nil
}

// evictionScope says how much of a transcript a compaction keeps and how
// large its summary requests may be.
type evictionScope struct {
	// keep is how many of the newest units stay verbatim, at least one.
	keep int
	// window is the model's context window in tokens, 0 when unknown:
	// evicted history larger than half of it is summarised in chunks of at
	// most half of it.
	window int64
}

// compact summarises the units of items that no summary covers yet, all
// but the newest scope.keep, through requests to the session's own
// provider and model with no tools (one per chunk, each carrying the
// summary so far forward), and stores the new state only once the last
// summary came back. A failure changes nothing.
func (s *Service) compact(ctx context.Context, id string, items []albedo.Item, ep albedo.Endpoint, strategy string, scope evictionScope) (albedo.Compaction, error) {
	prev, prevOK, err := s.compaction(ctx, id, items)
	if err != nil {
		return albedo.Compaction{}, err
	}
	plan, ok := planEviction(items, prev, prevOK, scope.keep)
	if !ok {
		return albedo.Compaction{}, errNothingToCompact
	}
	summary := ""
	if prevOK {
		summary = prev.Summary
	}
	for _, chunk := range compaction.EvictedChunks(items[plan.from:plan.to], scope.window/2) {
		if summary, err = s.summarise(ctx, id, ep, summary, chunk); err != nil {
			return albedo.Compaction{}, err
		}
	}
	c := plan.stated(items, id, summary, strategy, s.now())
	before := inputTokens(projection.ProjectFor(items, ep))
	if prevOK {
		before = inputTokens(projection.ProjectCompacted(items, prev, ep))
	}
	if err := s.recordCompaction(context.WithoutCancel(ctx), c, items, ep, before); err != nil {
		return albedo.Compaction{}, err
	}
	return c, nil
}

// summarise makes one summary request: previous and the evicted items in,
// the new summary out. The request is a ledger row of kind summary; an
// answer with no text is a failure.
func (s *Service) summarise(ctx context.Context, id string, ep albedo.Endpoint, previous string, evicted []albedo.Item) (string, error) {
	req := albedo.ModelRequest{
		Endpoint:     ep,
		Instructions: compaction.SummaryInstructions,
		Input:        projection.ProjectFor([]albedo.Item{{Kind: albedo.KindUser, Text: compaction.RenderEvicted(previous, evicted)}}, ep),
		SessionID:    id,
	}
	rows := s.newLedger(id, albedo.RequestSummary, ep, conversational(evicted), req)
	req.OnAttempt = rows.attempt
	reply, err := s.provider.Stream(ctx, req, func(albedo.Delta) {})
	rows.finish(ctx, reply, err)
	if err != nil {
		return "", fmt.Errorf("ask %s (%s) for a summary: %w", ep.Provider, ep.Model, err)
	}
	var parts []string
	for _, it := range reply.Items {
		if it.Kind == albedo.KindAssistant && strings.TrimSpace(it.Text) != "" {
			parts = append(parts, strings.TrimSpace(it.Text))
		}
	}
	if len(parts) == 0 {
		return "", albedo.Errorf(albedo.EProvider, "%s (%s) answered the summary request with no text", ep.Provider, ep.Model)
	}
	return strings.Join(parts, "\n\n"), nil
}

// retryCompacted answers a request the provider refused as larger than its
// context: one forced compaction that keeps only the newest unit, then one
// retry of the request, a ledger row like the first. If that fails too,
// the error says what was tried.
func (s *Service) retryCompacted(ctx context.Context, id string, items []albedo.Item, req albedo.ModelRequest, full error, onDelta func(albedo.Delta), window int64) (albedo.ModelReply, error) {
	s.log.Info("context full: compacting", "session", id, "err", full)
	if err := s.markCompacting(context.WithoutCancel(ctx), id, albedo.CompactForced); err != nil {
		return albedo.ModelReply{}, err
	}
	if _, err := s.compact(ctx, id, items, req.Endpoint, albedo.CompactForced, evictionScope{keep: 1, window: window}); err != nil {
		return albedo.ModelReply{}, &albedo.Error{Code: albedo.EProvider, Details: albedo.ErrorDetails(full), Message: fmt.Sprintf(
			"the request did not fit the model's context (%s), and compacting the earlier conversation failed: %s",
			albedo.ErrorMessage(full), albedo.ErrorMessage(err))}
	}
	input, err := s.projectInput(ctx, id, items, req.Endpoint)
	if err != nil {
		return albedo.ModelReply{}, err
	}
	req.Input = input
	rows := s.newLedger(id, albedo.RequestTurn, req.Endpoint, conversational(items), req)
	req.OnAttempt = rows.attempt
	reply, err := s.provider.Stream(ctx, req, onDelta)
	rows.finish(ctx, reply, err)
	if err != nil && albedo.ContextFull(err) {
		return reply, &albedo.Error{Code: albedo.EProvider, Details: albedo.ErrorDetails(err), Message: "the request did not fit the model's context even after " +
			"compacting the earlier conversation into a summary and retrying once: " + albedo.ErrorMessage(err)}
	}
	return reply, err
}

// resumeForcedCompaction does again, at the start of a resumed turn, the
// forced compaction albedo died in. A failure is logged and changes
// nothing: the request goes out whole, and should the provider refuse it,
// the turn compacts as any refused request does.
func (s *Service) resumeForcedCompaction(ctx context.Context, id string, items []albedo.Item, ep albedo.Endpoint, window int64) {
	s.log.Info("resuming a compaction", "session", id)
	if _, err := s.compact(ctx, id, items, ep, albedo.CompactForced, evictionScope{keep: 1, window: window}); err != nil && ctx.Err() == nil {
		s.log.Warn("resumed compaction failed", "session", id, "err", err)
	}
}
