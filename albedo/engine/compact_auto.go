package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/albedo/projection"
)

// autoCompact compacts a session before req is sent when req would reach
// the trigger share of the model's context window (the round's rules and
// window; with no known window nothing happens), and returns the request
// to send: req itself, or req projected afresh from the new summary.
//
// When the request does not fit the window at all and the tail leaves
// nothing to evict, everything but the newest unit is evicted. A
// compaction that fails (its summary request failed or answered nothing,
// or there is nothing left to evict) changes nothing: req is
// sent when it is still below the window, and compaction is tried again
// at the next request; otherwise the error names the cause and the turn
// fails. A cancelled ctx returns its error.
func (s *Service) autoCompact(ctx context.Context, id string, items []albedo.Item, req albedo.ModelRequest, rd round) (albedo.ModelRequest, error) {
	window := rd.win.tokens()
	if window <= 0 {
		return req, nil
	}
	size, err := s.nextRequestTokens(ctx, id, items, req)
	if err != nil {
		return req, err
	}
	if float64(size)*100 < rd.rules.Trigger*float64(window) {
		return req, nil
	}
	scope := compactScope(items, rd)
	_, err = s.compact(ctx, id, items, req.Endpoint, albedo.CompactAuto, scope)
	if errors.Is(err, errNothingToCompact) && size >= window && scope.keep > 1 {
		// The tail alone does not leave room: keep only the newest unit.
		_, err = s.compact(ctx, id, items, req.Endpoint, albedo.CompactAuto, evictionScope{keep: 1, window: window})
	}
	if ctx.Err() != nil {
		return req, ctx.Err()
	}
	if err == nil {
		input, err := s.projectInput(ctx, id, items, req.Endpoint)
		if err != nil {
			return req, err
		}
		req.Input = input
		return req, nil
	}
	if size < window {
		if !errors.Is(err, errNothingToCompact) {
			s.log.Warn("compaction failed; the request still fits, so it is sent", "session", id, "err", err)
		}
		return req, nil
	}
	if errors.Is(err, errNothingToCompact) {
		return req, albedo.Errorf(albedo.EProvider, "the next request (about %d tokens) does not fit the model's context window of %d tokens, "+
			"and there is nothing left to compact: the newest message and its answer alone fill it", size, window)
	}
	return req, &albedo.Error{Code: albedo.ErrorCode(err), Details: albedo.ErrorDetails(err), Message: fmt.Sprintf(
		"the next request (about %d tokens) does not fit the model's context window of %d tokens, and compacting the earlier conversation failed: %s",
		size, window, albedo.ErrorMessage(err))}
}

// nextRequestTokens is the size in tokens of req, the next request of a
// session over items: the provider's input tokens of the session's last
// turn request plus the estimate of what was appended since, when the
// provider counted that request and no summary was asked for since (a
// compaction may have changed what a request carries); else the estimate
// of req alone (the UTF-8 bytes of its body divided by 4).
func (s *Service) nextRequestTokens(ctx context.Context, id string, items []albedo.Item, req albedo.ModelRequest) (int64, error) {
	last, ok, err := s.store.LastRequest(ctx, id, albedo.RequestTurn)
	if err != nil {
		return 0, fmt.Errorf("read the last request of session %s: %w", id, err)
	}
	if ok && last.Usage.InputTokens != nil {
		sum, summarised, err := s.store.LastRequest(ctx, id, albedo.RequestSummary)
		if err != nil {
			return 0, fmt.Errorf("read the last summary request of session %s: %w", id, err)
		}
		if !summarised || sum.ID < last.ID {
			if used := projection.MeasureContext(&last, items, req.Endpoint.Protocol).Used; used != nil {
				return *used, nil
			}
		}
	}
	return albedo.EstimateTokens(requestSize(req)), nil
}

// tailUnits is how many of the newest units of items fit, by the
// estimate of their projection for ep, in tailPercent of window: at least
// one.
func tailUnits(items []albedo.Item, ep albedo.Endpoint, window int64, tailPercent float64) int {
	budget := int64(tailPercent * float64(window) / 100)
	starts := compaction.UnitStarts(items)
	end, used, keep := len(items), int64(0), 0
	for i := len(starts) - 1; i >= 0; i-- {
		used += inputTokens(projection.ProjectFor(items[starts[i]:end], ep))
		if keep > 0 && used > budget {
			break
		}
		keep++
		end = starts[i]
	}
	return max(keep, 1)
}

// compactScope is the scope of a compaction in a round: the tail share of
// the round's window kept, or only the newest unit when the window is
// unknown.
func compactScope(items []albedo.Item, rd round) evictionScope {
	window := rd.win.tokens()
	if window <= 0 {
		return evictionScope{keep: 1}
	}
	return evictionScope{keep: tailUnits(items, rd.ep, window, rd.rules.Tail), window: window}
}
