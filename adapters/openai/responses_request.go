package openai

import (
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// responsesRequest is the body of a Responses request.
type responsesRequest struct {
	Model        string            `json:"model"`
	Input        []json.RawMessage `json:"input"`
	Instructions string            `json:"instructions,omitempty"`
	Tools        []responsesTool   `json:"tools,omitempty"`
	Stream       bool              `json:"stream"`
	Store        bool              `json:"store"`
	Reasoning    *responsesEffort  `json:"reasoning,omitempty"`
	Include      []string          `json:"include,omitempty"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type responsesEffort struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

// responsesBody encodes req as a streaming, unstored Responses request.
// With an effort set it also asks for the reasoning's encrypted content,
// which is what lets a reasoning item be sent back when nothing is stored.
func responsesBody(req albedo.ModelRequest) ([]byte, error) {
	body := responsesRequest{
		Model:        req.Endpoint.Model,
		Input:        unstored(input(req.Input)),
		Instructions: req.Instructions,
		Stream:       true,
		Store:        false,
	}
	if e := req.Endpoint.Effort; e != "" {
		body.Reasoning = &responsesEffort{Effort: e, Summary: "auto"}
		body.Include = []string{"reasoning.encrypted_content"}
	}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, responsesTool{
			Type: "function", Name: t.Name, Description: t.Description, Parameters: parameters(t),
		})
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding responses request: %w", err)
	}
	return b, nil
}
