package albedo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// errNothingToCompact says that a transcript has no unit to evict: the
// newest unit is never cut.
var errNothingToCompact = Errorf(EConflict, "nothing to compact: only the newest message and its answer are left")

// compaction returns the session's compaction state when it applies to
// items, and whether it does.
func (s *Service) compaction(ctx context.Context, id string, items []Item) (Compaction, bool, error) {
	c, err := s.store.Compaction(ctx, id)
	if ErrorCode(err) == ENotFound {
		return Compaction{}, false, nil
	}
	if err != nil {
		return Compaction{}, false, fmt.Errorf("read compaction state of session %s: %w", id, err)
	}
	_, ok := c.cutIndex(items)
	return c, ok, nil
}

// projectInput projects items for ep, starting from the session's summary
// when it has a compaction state that applies.
// What the session's last request projected is kept and extended (see
// projectionCache).
func (s *Service) projectInput(ctx context.Context, id string, items []Item, ep Endpoint) ([]json.RawMessage, error) {
	c, err := s.store.Compaction(ctx, id)
	var comp *Compaction
	switch {
	case err == nil:
		comp = &c
	case ErrorCode(err) != ENotFound:
		return nil, fmt.Errorf("read compaction state of session %s: %w", id, err)
	}
	return s.state(id).cache.projected.project(items, comp, ep), nil
}

// compact summarises every unit of items but the newest that no summary
// covers yet, through one request to the session's own provider and model
// with no tools, and stores the new state only once the summary came back.
// A failure changes nothing.
func (s *Service) compact(ctx context.Context, id string, items []Item, ep Endpoint, strategy string) (Compaction, error) {
	prev, prevOK, err := s.compaction(ctx, id, items)
	if err != nil {
		return Compaction{}, err
	}
	plan, ok := planEviction(items, prev, prevOK)
	if !ok {
		return Compaction{}, errNothingToCompact
	}
	previous := ""
	if prevOK {
		previous = prev.Summary
	}
	text := RenderEvicted(previous, items[plan.from:plan.to])
	req := ModelRequest{
		Endpoint:     ep,
		Instructions: SummaryInstructions,
		Input:        ProjectFor([]Item{{Kind: KindUser, Text: text}}, ep),
		SessionID:    id,
	}
	reply, err := s.provider.Stream(ctx, req, func(Delta) {})
	if err != nil {
		return Compaction{}, fmt.Errorf("ask %s (%s) for a summary: %w", ep.Provider, ep.Model, err)
	}
	var parts []string
	for _, it := range reply.Items {
		if it.Kind == KindAssistant && strings.TrimSpace(it.Text) != "" {
			parts = append(parts, strings.TrimSpace(it.Text))
		}
	}
	if len(parts) == 0 {
		return Compaction{}, Errorf(EProvider, "%s (%s) answered the summary request with no text", ep.Provider, ep.Model)
	}
	c := plan.stated(items, id, strings.Join(parts, "\n\n"), strategy, s.now())
	before := inputTokens(ProjectFor(items, ep))
	if prevOK {
		before = inputTokens(ProjectCompacted(items, prev, ep))
	}
	if err := s.recordCompaction(context.WithoutCancel(ctx), c, items, ep, before); err != nil {
		return Compaction{}, err
	}
	return c, nil
}

// retryCompacted answers a request the provider refused as larger than its
// context: one forced compaction, then one retry of the request. If that
// fails too, the error says what was tried.
func (s *Service) retryCompacted(ctx context.Context, id string, items []Item, req ModelRequest, full error, onDelta func(Delta)) (ModelReply, error) {
	s.log.Info("context full: compacting", "session", id, "err", full)
	if _, err := s.compact(ctx, id, items, req.Endpoint, CompactForced); err != nil {
		return ModelReply{}, &Error{Code: EProvider, Details: ErrorDetails(full), Message: fmt.Sprintf(
			"the request did not fit the model's context (%s), and compacting the earlier conversation failed: %s",
			ErrorMessage(full), ErrorMessage(err))}
	}
	input, err := s.projectInput(ctx, id, items, req.Endpoint)
	if err != nil {
		return ModelReply{}, err
	}
	req.Input = input
	reply, err := s.provider.Stream(ctx, req, onDelta)
	if err != nil && ContextFull(err) {
		return reply, &Error{Code: EProvider, Details: ErrorDetails(err), Message: "the request did not fit the model's context even after " +
			"compacting the earlier conversation into a summary and retrying once: " + ErrorMessage(err)}
	}
	return reply, err
}
