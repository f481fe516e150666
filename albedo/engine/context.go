package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/albedo-agent/albedo/albedo"

	"github.com/albedo-agent/albedo/albedo/projection"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// Context reports a session's context.
func (s *Service) Context(ctx context.Context, id string) (albedo.ContextReport, error) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return albedo.ContextReport{}, err
	}
	st := s.state(id)
	rep, err := s.contextReport(ctx, st, sess, s.window(ctx, sess))
	if err != nil {
		return albedo.ContextReport{}, err
	}
	if rep.Instructions == nil {
		set := s.projectInstructions(ctx, sess)
		_, rep.Instructions = albedo.ComposeInstructions(s.instructions, "", set)
		rep.Skills = set.Skills
	}
	if rep.Compaction, err = s.appliedCompaction(ctx, st, id); err != nil {
		return albedo.ContextReport{}, err
	}
	return rep, nil
}

// contextReport measures a session's context in its model's window win;
// Instructions is what the last turn of this process sent, nil when none
// ran.
func (s *Service) contextReport(ctx context.Context, st *sessionState, sess albedo.Session, win windowInfo) (albedo.ContextReport, error) {
	var rep albedo.ContextReport
	rep.Window, rep.WindowSource, rep.Problems = win.window, win.source, win.problems
	last, ok, err := s.store.LastRequest(ctx, sess.ID, albedo.RequestTurn)
	if err != nil {
		return albedo.ContextReport{}, fmt.Errorf("read the last request of session %s: %w", sess.ID, err)
	}
	if ok {
		items, err := s.transcript(ctx, st, sess.ID)
		if err != nil {
			return albedo.ContextReport{}, err
		}
		protocol := last.Protocol
		if !protocol.Valid() {
			protocol = sess.Protocol
		}
		size := projection.MeasureContext(&last, items, protocol)
		rep.Used, rep.UsedSource = size.Used, size.Source
	}
	rep.Percent = albedo.Percent(rep.Used, rep.Window)
	st.instr.mu.Lock()
	rep.Instructions, rep.Skills = st.instr.used, st.instr.skills
	st.instr.mu.Unlock()
	if rep.Problems == nil {
		rep.Problems = []string{}
	}
	return rep, nil
}

// windowInfo is a session's context window and where it came from.
type windowInfo struct {
	window   *int64
	source   string
	problems []string
}

// tokens is the window in tokens, 0 when it is unknown.
func (w windowInfo) tokens() int64 {
	if w.window == nil {
		return 0
	}
	return *w.window
}

// window reads the configuration to find the context window of a
// session's model (see windowIn). A turn's round reads it with its
// endpoint instead (see readRound).
func (s *Service) window(ctx context.Context, sess albedo.Session) windowInfo {
	rules := s.compactionRules(ctx)
	cfg, err := s.config.Load(ctx)
	if err != nil {
		return windowInfo{problems: append(slices.Clone(rules.Problems), "the configuration could not be read: "+albedo.ErrorMessage(err))}
	}
	return s.windowIn(ctx, cfg, sess, rules)
}

// windowIn finds the context window of a session's model under cfg: the
// provider's "contextWindow", else the model catalog's. Its problems
// start with those of the compaction rules.
func (s *Service) windowIn(ctx context.Context, cfg albedo.Config, sess albedo.Session, rules albedo.CompactionRules) windowInfo {
	var info windowInfo
	info.problems = append(info.problems, rules.Problems...)
	pc, ok := cfg.Providers[sess.Provider]
	if !ok {
		return info
	}
	if pc.ContextWindowProblem != "" {
		info.problems = append(info.problems, pc.ContextWindowProblem)
	}
	if pc.ContextWindow > 0 {
		w := pc.ContextWindow
		info.window, info.source = &w, albedo.WindowFromConfig
		return info
	}
	if s.catalog == nil {
		return info
	}
	cat := s.catalog.Catalog(ctx)
	info.problems = append(info.problems, cat.Problems...)
	model := cmp.Or(sess.Model, pc.Model)
	w, problem := albedo.LookupWindow(cat, model, pc.BaseURL)
	if problem != "" {
		info.problems = append(info.problems, problem)
	}
	if w > 0 {
		info.window, info.source = &w, albedo.WindowFromCatalog
	}
	return info
}

// usageEvent is the live status event after a reply: its usage and the
// session's context in the round's window win.
func (s *Service) usageEvent(ctx context.Context, st *sessionState, sess albedo.Session, win windowInfo, u albedo.Usage) albedo.Event {
	ev := albedo.Event{Type: wire.EventStatus, Usage: &u}
	rep, err := s.contextReport(ctx, st, sess, win)
	if err != nil {
		s.log.Warn("measure the context", "session", sess.ID, "err", err)
		return ev
	}
	ev.Window, ev.Used, ev.Percent = rep.Window, rep.Used, rep.Percent
	return ev
}

// conversational counts the items of a transcript that are sent to the
// model.
func conversational(items []albedo.Item) int {
	n := 0
	for _, it := range items {
		if it.Kind.Conversational() {
			n++
		}
	}
	return n
}
