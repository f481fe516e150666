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

// ContextReport is what GET /sessions/{id}/context shows: the model's
// window, how much of it the session fills, the instruction files sent,
// the skills offered, and what is wrong with the window or the catalog.
type ContextReport struct {
	Window       *int64
	WindowSource string
	Used         *int64
	UsedSource   string
	Percent      *float64
	Instructions []InstructionUse
	// Skills are the skills the instructions offer, by precedence.
	Skills   []Skill
	Problems []string
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
