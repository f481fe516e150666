package wire

// UsageTotals sums the tokens of a session's successful model requests (a
// count a provider did not send adds nothing) and counts the requests.
type UsageTotals struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	ReasoningTokens   int64 `json:"reasoning_tokens"`
	Requests          int64 `json:"requests"`
}

// Add counts one successful request of usage u.
func (u *UsageTotals) Add(r Usage) {
	u.InputTokens += Tokens(r.InputTokens)
	u.CachedInputTokens += Tokens(r.CachedTokens)
	u.OutputTokens += Tokens(r.OutputTokens)
	u.ReasoningTokens += Tokens(r.ReasoningTokens)
	u.Requests++
}

// Minus returns the usage added since before.
func (u UsageTotals) Minus(before UsageTotals) UsageTotals {
	return UsageTotals{
		InputTokens:       u.InputTokens - before.InputTokens,
		CachedInputTokens: u.CachedInputTokens - before.CachedInputTokens,
		OutputTokens:      u.OutputTokens - before.OutputTokens,
		ReasoningTokens:   u.ReasoningTokens - before.ReasoningTokens,
		Requests:          u.Requests - before.Requests,
	}
}

// RequestRow is one attempt at a model request, from a session's request
// ledger, as GET /sessions/{id}/requests shows it. Counts and Status are
// nil when the provider sent none; Error is nil when there was none.
type RequestRow struct {
	ID       int64  `json:"id"`
	Kind     string `json:"kind"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Protocol string `json:"protocol"`
	// Started and Finished are Unix milliseconds.
	Started           int64   `json:"started"`
	Finished          int64   `json:"finished"`
	Outcome           string  `json:"outcome"`
	Status            *int    `json:"status"`
	Error             *string `json:"error"`
	InputTokens       *int64  `json:"input_tokens"`
	CachedInputTokens *int64  `json:"cached_input_tokens"`
	OutputTokens      *int64  `json:"output_tokens"`
	ReasoningTokens   *int64  `json:"reasoning_tokens"`
	// Items is how many stored transcript items the request carried.
	Items int `json:"items"`
	// Bytes is the exact size of the request body.
	Bytes int64 `json:"bytes"`
}

// RequestPage is a page of a session's request ledger, oldest first; Next
// is the cursor (after) of the next page, nil when nothing follows.
type RequestPage struct {
	Rows []RequestRow `json:"rows"`
	Next *int64       `json:"next"`
}

// InstructionUse is what a request carried of one project instruction
// file.
type InstructionUse struct {
	Path      string `json:"path"`
	Bytes     int    `json:"bytes"`
	Truncated bool   `json:"truncated"`
}

// ContextSkill is a skill a session's instructions offer.
type ContextSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Source names its SKILL.md: "ALBEDO_HOME/skills/NAME/SKILL.md" or
	// its path from the repository root.
	Source string `json:"source"`
}

// Context is how full a session's model context is, as GET
// /sessions/{id}/context answers.
type Context struct {
	Window *int64 `json:"window"`
	// WindowSource is "config" or "catalog", nil when Window is.
	WindowSource *string `json:"window_source"`
	Used         *int64  `json:"used"`
	// UsedSource is "provider" or "estimate", nil when Used is.
	UsedSource   *string          `json:"used_source"`
	Percent      *float64         `json:"percent"`
	Instructions []InstructionUse `json:"instructions"`
	// Skills are the skills the instructions offer: their names and
	// descriptions are sent, their bodies read by the model on demand.
	Skills   []ContextSkill `json:"skills"`
	Problems []string       `json:"problems"`
	// Compaction says whether a summary stands in for the start of the
	// conversation in the model's requests.
	Compaction ContextCompaction `json:"compaction"`
}

// Compaction states (ContextCompaction.State).
const (
	// CompactionNone: the model's requests carry the whole transcript.
	CompactionNone = "none"
	// CompactionCompacted: a summary stands in for its start.
	CompactionCompacted = "compacted"
)

// ContextCompaction is the compaction member of a session's context.
type ContextCompaction struct {
	// State is CompactionNone or CompactionCompacted.
	State string `json:"state"`
	// SummarisedItems is how many transcript items the summary stands in
	// for; 0 when State is none.
	SummarisedItems int `json:"summarised_items"`
	// At is when the summary was made (Unix milliseconds), nil when State
	// is none.
	At *int64 `json:"at"`
}
