package openai

import "github.com/albedo-agent/albedo/albedo"

// chatUsage is the usage object of a Chat Completions chunk. Every count
// is a pointer: a provider that leaves one out has not said zero.
type chatUsage struct {
	PromptTokens            *int64        `json:"prompt_tokens"`
	CompletionTokens        *int64        `json:"completion_tokens"`
	PromptTokensDetails     *usageDetails `json:"prompt_tokens_details"`
	CompletionTokensDetails *usageDetails `json:"completion_tokens_details"`
	// PromptCacheHitTokens is DeepSeek's name for the cached part.
	PromptCacheHitTokens *int64 `json:"prompt_cache_hit_tokens"`
}

// responsesUsage is the usage object of a finished Responses reply.
type responsesUsage struct {
	InputTokens         *int64        `json:"input_tokens"`
	OutputTokens        *int64        `json:"output_tokens"`
	InputTokensDetails  *usageDetails `json:"input_tokens_details"`
	OutputTokensDetails *usageDetails `json:"output_tokens_details"`
}

// usageDetails is the details object of the input (its cached part) or
// of the output (its reasoning part), in either protocol.
type usageDetails struct {
	CachedTokens    *int64 `json:"cached_tokens"`
	ReasoningTokens *int64 `json:"reasoning_tokens"`
}

// usage converts u; nil gives the zero Usage (nothing reported).
func (u *chatUsage) usage() albedo.Usage {
	if u == nil {
		return albedo.Usage{}
	}
	out := usageOf(u.PromptTokens, u.CompletionTokens, u.PromptTokensDetails, u.CompletionTokensDetails)
	if out.CachedTokens == nil {
		out.CachedTokens = u.PromptCacheHitTokens
	}
	return out
}

// usage converts u; nil gives the zero Usage (nothing reported).
func (u *responsesUsage) usage() albedo.Usage {
	if u == nil {
		return albedo.Usage{}
	}
	return usageOf(u.InputTokens, u.OutputTokens, u.InputTokensDetails, u.OutputTokensDetails)
}

// usageOf is the usage of counts of input and output tokens and their
// details, either of which may be nil.
func usageOf(input, output *int64, in, out *usageDetails) albedo.Usage {
	u := albedo.Usage{InputTokens: input, OutputTokens: output}
	if in != nil {
		u.CachedTokens = in.CachedTokens
	}
	if out != nil {
		u.ReasoningTokens = out.ReasoningTokens
	}
	return u
}
