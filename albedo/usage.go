package albedo

// Tokens returns a count for a Usage field.
func Tokens(n int64) *int64 { return &n }

// UsageTotals sums the usage of a session's successful requests; a count
// a provider did not send adds nothing.
type UsageTotals struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	ReasoningTokens   int64 `json:"reasoning_tokens"`
	// Requests counts the successful requests.
	Requests int64 `json:"requests"`
}

// Add counts one successful request of usage u.
func (t *UsageTotals) Add(u Usage) {
	t.InputTokens += deref(u.InputTokens)
	t.CachedInputTokens += deref(u.CachedTokens)
	t.OutputTokens += deref(u.OutputTokens)
	t.ReasoningTokens += deref(u.ReasoningTokens)
	t.Requests++
}

// Plus returns the sum of t and o.
func (t UsageTotals) Plus(o UsageTotals) UsageTotals {
	return UsageTotals{
		InputTokens:       t.InputTokens + o.InputTokens,
		CachedInputTokens: t.CachedInputTokens + o.CachedInputTokens,
		OutputTokens:      t.OutputTokens + o.OutputTokens,
		ReasoningTokens:   t.ReasoningTokens + o.ReasoningTokens,
		Requests:          t.Requests + o.Requests,
	}
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
