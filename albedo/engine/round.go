package engine

import (
	"cmp"
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// round is what one model request of a session reads of the user's
// configuration, the model catalog and the compaction settings: where the
// request goes, the model's context window, and when to compact. It is
// read once per round, so settings edited meanwhile apply from the next
// round.
type round struct {
	ep    albedo.Endpoint
	win   windowInfo
	rules albedo.CompactionRules
}

// readRound reads the configuration, the model catalog when the
// configuration names no window, and the compaction settings, once for the
// next request of sess.
func (s *Service) readRound(ctx context.Context, sess albedo.Session) (round, error) {
	cfg, err := s.config.Load(ctx)
	if err != nil {
		return round{}, err
	}
	ep, err := s.endpoint(ctx, cfg, sess)
	if err != nil {
		return round{}, err
	}
	rules := s.compactionRules(ctx)
	return round{ep: ep, win: s.windowIn(ctx, cfg, sess, rules), rules: rules}, nil
}

// endpoint resolves where the next request of sess goes under cfg: its
// own provider and model, with that provider's URL, key and protocol. A
// protocol that changed in cfg is recorded with the session.
func (s *Service) endpoint(ctx context.Context, cfg albedo.Config, sess albedo.Session) (albedo.Endpoint, error) {
	pc, ok := cfg.Providers[sess.Provider]
	if !ok {
		return albedo.Endpoint{}, albedo.Errorf(albedo.ENoProvider, "provider %q of this session is not configured: switch the session with /model, or %s", sess.Provider, LoginHint)
	}
	model := cmp.Or(sess.Model, pc.Model)
	if pc.Protocol != sess.Protocol {
		_, err := s.updateSession(ctx, sess.ID, func(x *albedo.Session) error {
			x.Protocol = pc.Protocol
			return nil
		})
		if err != nil {
			return albedo.Endpoint{}, err
		}
	}
	return albedo.Endpoint{
		Provider: sess.Provider,
		BaseURL:  pc.BaseURL,
		APIKey:   pc.APIKey,
		Model:    model,
		Protocol: pc.Protocol,
		Effort:   sess.Effort,

		Reasoning:        pc.Reasoning,
		ThinkTags:        pc.ThinkTags,
		ReasoningContent: pc.ReasoningContent,
		NoPromptCacheKey: pc.NoPromptCacheKey,
		MaxReplyBytes:    pc.MaxReplyBytes,
	}, nil
}
