package openai

import (
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// chatRequest is the body of a Chat Completions request, less its model
// and messages, which newBody lays out around it.
type chatRequest struct {
	Tools           []chatTool        `json:"tools,omitempty"`
	Stream          bool              `json:"stream"`
	StreamOptions   chatStreamOptions `json:"stream_options"`
	ReasoningEffort string            `json:"reasoning_effort,omitempty"`
	// PromptCacheKey is the session id: requests of one session share a
	// prompt cache.
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
}

type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatBody encodes req as a streaming Chat Completions request. The
// instructions become a leading system message.
func chatBody(req albedo.ModelRequest) (*requestBody, error) {
	body := chatRequest{
		Stream:          true,
		StreamOptions:   chatStreamOptions{IncludeUsage: true},
		ReasoningEffort: req.Endpoint.Effort,
		PromptCacheKey:  cacheKey(req),
	}
	var system []byte
	if req.Instructions != "" {
		system = mustMarshal(chatMessage{Role: "system", Content: req.Instructions})
	}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, chatTool{
			Type:     "function",
			Function: chatFunction{Name: t.Name, Description: t.Description, Parameters: parameters(t)},
		})
	}
	b, err := newBody(req.Endpoint.Model, "messages", system, req.Input, body)
	if err != nil {
		return nil, fmt.Errorf("encoding chat completions request: %w", err)
	}
	return b, nil
}
