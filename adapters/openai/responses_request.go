package openai

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/albedo-agent/albedo/albedo"
)

// responsesRequest is the body of a Responses request, less its model and
// input, which newBody lays out around it.
type responsesRequest struct {
	Instructions string           `json:"instructions,omitempty"`
	Tools        []responsesTool  `json:"tools,omitempty"`
	Stream       bool             `json:"stream"`
	Store        bool             `json:"store"`
	Reasoning    *responsesEffort `json:"reasoning,omitempty"`
	Include      []string         `json:"include,omitempty"`
	// PromptCacheKey is the session id: requests of one session share a
	// prompt cache.
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict is required by the published schema; the python tool's
	// arguments schema is not written for strict mode, so it is false.
	Strict bool `json:"strict"`
}

type responsesEffort struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary"`
}

// unstored returns the input items without the ids their provider gave
// them: with store set to false the provider keeps nothing, and an item
// naming an id would make it refuse the whole request. Replies are decoded
// without them; items stored before that may still carry one.
func unstored(items []json.RawMessage) []json.RawMessage {
	out := items
	for i, raw := range items {
		if cut := withoutID(raw); len(cut) != len(raw) {
			if &out[0] == &items[0] {
				out = slices.Clone(items)
			}
			out[i] = cut
		}
	}
	return out
}

// includeEncrypted asks for the reasoning's encrypted content.
const includeEncrypted = "reasoning.encrypted_content"

// responsesBody encodes req as a streaming, unstored Responses request.
// For a reasoning model (an effort set, or reasons(ep)) it asks for a
// summary and, unless withInclude is false, for the reasoning's encrypted
// content, which is what lets a reasoning item be sent back when nothing
// is stored.
func responsesBody(req albedo.ModelRequest, withInclude bool) (*requestBody, error) {
	ep := req.Endpoint
	body := responsesRequest{
		Instructions:   req.Instructions,
		Stream:         true,
		Store:          false,
		PromptCacheKey: cacheKey(req),
	}
	if ep.Effort != "" || reasons(ep) {
		body.Reasoning = &responsesEffort{Effort: ep.Effort, Summary: "auto"}
		if withInclude {
			body.Include = []string{includeEncrypted}
		}
	}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, responsesTool{
			Type: "function", Name: t.Name, Description: t.Description, Parameters: parameters(t),
		})
	}
	b, err := newBody(ep.Model, "input", nil, unstored(req.Input), body)
	if err != nil {
		return nil, fmt.Errorf("encoding responses request: %w", err)
	}
	b.asksInclude = len(body.Include) > 0
	return b, nil
}
