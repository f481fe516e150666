package albedo

import (
	"math"
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
