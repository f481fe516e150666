package albedo

import (
	"context"
	"fmt"
	"math"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Where a context window or a context size comes from.
const (
	WindowFromConfig  = "config"
	WindowFromCatalog = "catalog"
	UsedFromProvider  = "provider"
	UsedFromEstimate  = "estimate"
)

// EstimateTokens estimates the tokens of n bytes of UTF-8 request body:
// n/4.
func EstimateTokens(n int64) int64 { return n / 4 }

// ContextSize is how much of the model's context a session fills.
type ContextSize struct {
	// Used is in tokens; nil when the session made no turn request yet.
	Used *int64
	// Source is UsedFromProvider when the base of Used is the provider's
	// count, UsedFromEstimate when it is estimated, "" when Used is nil.
	Source string
}

// MeasureContext computes the size of a session's context: the size of
// its last turn request (the provider's input tokens when it sent them,
// else the estimate of the request's body) plus the estimate of the
// conversational items appended to transcript since that request, as
// they would be sent in protocol. last is nil when there was no request.
func MeasureContext(last *RequestRow, transcript []Item, protocol Protocol) ContextSize {
	if last == nil {
		return ContextSize{}
	}
	used, source := EstimateTokens(last.Bytes), UsedFromEstimate
	if last.Usage.InputTokens != nil {
		used, source = *last.Usage.InputTokens, UsedFromProvider
	}
	var since []Item
	seen := 0
	for _, it := range transcript {
		if !it.Kind.Conversational() {
			continue
		}
		if seen >= last.Items {
			since = append(since, it)
		}
		seen++
	}
	used += EstimateTokens(projectedSize(since, protocol))
	return ContextSize{Used: &used, Source: source}
}

// ContextReport is what GET /sessions/{id}/context shows: the model's
// window, how much of it the session fills, the instruction files sent,
// and what is wrong with the window or the catalog.
type ContextReport struct {
	Window       *int64
	WindowSource string
	Used         *int64
	UsedSource   string
	Percent      *float64
	Instructions []InstructionUse
	Problems     []string
	// Compaction is the session's compaction state that applies to its
	// transcript; nil when none does.
	Compaction *Compaction
}

// Percent returns used as a percentage of window, to one decimal, or nil
// when either is unknown.
func Percent(used, window *int64) *float64 {
	if used == nil || window == nil || *window <= 0 {
		return nil
	}
	p := math.Round(float64(*used)*1000/float64(*window)) / 10
	return &p
}

// Context reports a session's context.
func (s *Service) Context(ctx context.Context, id string) (ContextReport, error) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return ContextReport{}, err
	}
	st := s.state(id)
	rep, err := s.contextReport(ctx, st, sess, s.window(ctx, sess))
	if err != nil {
		return ContextReport{}, err
	}
	if rep.Instructions == nil {
		_, rep.Instructions = ComposeInstructions(s.instructions, "", s.projectInstructions(ctx, sess))
	}
	if rep.Compaction, err = s.appliedCompaction(ctx, st, id); err != nil {
		return ContextReport{}, err
	}
	return rep, nil
}

// contextReport measures a session's context in its model's window win;
// Instructions is what the last turn of this process sent, nil when none
// ran.
func (s *Service) contextReport(ctx context.Context, st *sessionState, sess Session, win windowInfo) (ContextReport, error) {
	var rep ContextReport
	rep.Window, rep.WindowSource, rep.Problems = win.window, win.source, win.problems
	last, ok, err := s.store.LastRequest(ctx, sess.ID, RequestTurn)
	if err != nil {
		return ContextReport{}, fmt.Errorf("read the last request of session %s: %w", sess.ID, err)
	}
	if ok {
		items, err := s.transcript(ctx, st, sess.ID)
		if err != nil {
			return ContextReport{}, err
		}
		protocol := last.Protocol
		if !protocol.Valid() {
			protocol = sess.Protocol
		}
		size := MeasureContext(&last, items, protocol)
		rep.Used, rep.UsedSource = size.Used, size.Source
	}
	rep.Percent = Percent(rep.Used, rep.Window)
	st.instr.mu.Lock()
	rep.Instructions = st.instr.used
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
func (s *Service) window(ctx context.Context, sess Session) windowInfo {
	rules := s.compactionRules(ctx)
	cfg, err := s.config.Load(ctx)
	if err != nil {
		var info windowInfo
		info.problems = append(info.problems, rules.problems...)
		info.problems = append(info.problems, "the configuration could not be read: "+ErrorMessage(err))
		return info
	}
	return s.windowIn(ctx, cfg, sess, rules)
}

// windowIn finds the context window of a session's model under cfg: the
// provider's "contextWindow", else the model catalog's. Its problems
// start with those of the compaction rules.
func (s *Service) windowIn(ctx context.Context, cfg Config, sess Session, rules compactionRules) windowInfo {
	var info windowInfo
	info.problems = append(info.problems, rules.problems...)
	pc, ok := cfg.Providers[sess.Provider]
	if !ok {
		return info
	}
	if pc.ContextWindowProblem != "" {
		info.problems = append(info.problems, pc.ContextWindowProblem)
	}
	if pc.ContextWindow > 0 {
		w := pc.ContextWindow
		info.window, info.source = &w, WindowFromConfig
		return info
	}
	if s.catalog == nil {
		return info
	}
	cat := s.catalog.Catalog(ctx)
	info.problems = append(info.problems, cat.Problems...)
	model := sess.Model
	if model == "" {
		model = pc.Model
	}
	w, problem := LookupWindow(cat, model, pc.BaseURL)
	if problem != "" {
		info.problems = append(info.problems, problem)
	}
	if w > 0 {
		info.window, info.source = &w, WindowFromCatalog
	}
	return info
}

// usageEvent is the live status event after a reply: its usage and the
// session's context in the round's window win.
func (s *Service) usageEvent(ctx context.Context, st *sessionState, sess Session, win windowInfo, u Usage) Event {
	ev := Event{Type: wire.EventStatus, Usage: &u}
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
func conversational(items []Item) int {
	n := 0
	for _, it := range items {
		if it.Kind.Conversational() {
			n++
		}
	}
	return n
}
