package openai

import (
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// reasons reports whether ep's model reasons, so that Responses requests
// ask for its reasoning even with no effort set: what the provider's
// configuration says ("reasoning": true or false), or else whether the
// model's name (after any "provider/" prefix) starts like OpenAI's
// reasoning models: o1 to o9 ("o3", "o4-mini"), "gpt-5", or "codex", or
// names one ("gpt-5.1-codex-max", "codex-mini-latest").
func reasons(ep albedo.Endpoint) bool {
	if ep.Reasoning != nil {
		return *ep.Reasoning
	}
	name := strings.ToLower(ep.Model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	switch {
	case len(name) >= 2 && name[0] == 'o' && name[1] >= '1' && name[1] <= '9' && (len(name) == 2 || name[2] == '-'):
		return true
	case strings.HasPrefix(name, "gpt-5"), strings.HasPrefix(name, "codex"), strings.Contains(name, "-codex"):
		return true
	}
	return false
}

// cacheKey is the prompt cache key of req: its session id, unless the
// provider turned the key off.
func cacheKey(req albedo.ModelRequest) string {
	if req.Endpoint.NoPromptCacheKey {
		return ""
	}
	return req.SessionID
}
