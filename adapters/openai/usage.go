package openai

import "github.com/albedo-agent/albedo/albedo"

// chatUsage is the usage object of a Chat Completions chunk. Every count
// is a pointer: a provider that leaves one out has not said zero.
type chatUsage struct {
	PromptTokens        *int64 `json:"prompt_tokens"`
	CompletionTokens    *int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens *int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// PromptCacheHitTokens is DeepSeek's name for the cached part.
	PromptCacheHitTokens *int64 `json:"prompt_cache_hit_tokens"`
}

// usage converts u; nil gives the zero Usage (nothing reported).
func (u *chatUsage) usage() albedo.Usage {
	if u == nil {
		return albedo.Usage{}
	}
	out := albedo.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.CachedTokens = d.CachedTokens
	}
	if out.CachedTokens == nil {
		out.CachedTokens = u.PromptCacheHitTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	return out
}

// responsesUsage is the usage object of a finished Responses reply.
type responsesUsage struct {
	InputTokens        *int64 `json:"input_tokens"`
	OutputTokens       *int64 `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens *int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens *int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// usage converts u; nil gives the zero Usage (nothing reported).
func (u *responsesUsage) usage() albedo.Usage {
	if u == nil {
		return albedo.Usage{}
	}
	out := albedo.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if d := u.InputTokensDetails; d != nil {
		out.CachedTokens = d.CachedTokens
	}
	if d := u.OutputTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	return out
}
