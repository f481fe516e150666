package openai

import (
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// A provider's refusal of a request larger than its context is recognised
// by the domain, from an error body and from a stream's error event.
func TestContextFullIsRecognised(t *testing.T) {
	ep := albedo.Endpoint{Provider: "p"}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"OpenAI body with its code", statusFailure(ep, "http://p.invalid/v1/responses", 400, nil, []byte(`{"error":{"message":"Input too long.","type":"invalid_request_error","code":"context_length_exceeded"}}`)), true},
		{"vLLM body", statusFailure(ep, "http://p.invalid/v1/responses", 400, nil, []byte(`{"object":"error","message":"This model's maximum model length is 4096 tokens.","type":"BadRequestError","code":400}`)), true},
		{"llama.cpp body", statusFailure(ep, "http://p.invalid/v1/responses", 400, nil, []byte(`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`)), true},
		{"other 400", statusFailure(ep, "http://p.invalid/v1/responses", 400, nil, []byte(`{"error":{"message":"bad tool","code":"invalid_value"}}`)), false},
		{"stream error event with a code", failure(ep, codeDetails("context_length_exceeded"), "failed mid-stream: too long"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := albedo.ContextFull(tc.err); got != tc.want {
				t.Errorf("ContextFull(%v) = %v; want %v", tc.err, got, tc.want)
			}
		})
	}
}
