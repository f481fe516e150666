package openai

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestReasonsByConfigurationOrModelName(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		model      string
		configured *bool
		want       bool
	}{
		{"gpt-5", nil, true},
		{"gpt-5.1-codex-max", nil, true},
		{"openai/gpt-5-mini", nil, true},
		{"o3", nil, true},
		{"o4-mini", nil, true},
		{"codex-mini-latest", nil, true},
		{"gpt-4o", nil, false},
		{"gpt-4.1", nil, false},
		{"omni-1", nil, false},
		{"qwen3-max", nil, false},
		{"my-proxy-alias", &yes, true},
		{"gpt-5", &no, false},
	}
	for _, tt := range tests {
		if got := reasons(albedo.Endpoint{Model: tt.model, Reasoning: tt.configured}); got != tt.want {
			t.Errorf("reasons(%q, configured %v) = %v, want %v", tt.model, tt.configured, got, tt.want)
		}
	}
}

func TestResponsesReasoningAndCacheKey(t *testing.T) {
	yes := true
	tests := []struct {
		name  string
		ep    func(*albedo.Endpoint)
		want  map[string]any
		unset []string
	}{
		{"reasoning model without effort asks for summary and encrypted content",
			func(ep *albedo.Endpoint) { ep.Model = "gpt-5" },
			map[string]any{"reasoning": map[string]any{"summary": "auto"}, "include": []any{"reasoning.encrypted_content"}, "prompt_cache_key": "session-1"}, nil},
		{"configured reasoning",
			func(ep *albedo.Endpoint) { ep.Reasoning = &yes },
			map[string]any{"reasoning": map[string]any{"summary": "auto"}, "include": []any{"reasoning.encrypted_content"}}, nil},
		{"plain model asks for no reasoning",
			func(ep *albedo.Endpoint) { ep.Model = "gpt-4.1" },
			map[string]any{"prompt_cache_key": "session-1"}, []string{"reasoning", "include"}},
		{"cache key turned off",
			func(ep *albedo.Endpoint) { ep.NoPromptCacheKey = true },
			nil, []string{"prompt_cache_key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, responsesText()...) })
			ep := endpoint(p, albedo.ProtocolResponses)
			tt.ep(&ep)
			if _, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: ep, SessionID: "session-1"}, nil); err != nil {
				t.Fatal(err)
			}
			body := p.seen()[0].Body
			for k, v := range tt.want {
				if !reflect.DeepEqual(body[k], v) {
					t.Errorf("%s = %v, want %v", k, body[k], v)
				}
			}
			for _, k := range tt.unset {
				if _, ok := body[k]; ok {
					t.Errorf("%s sent: %v", k, body[k])
				}
			}
		})
	}
}

func TestChatSendsTheSessionAsPromptCacheKey(t *testing.T) {
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, chatText("hi")...) })
	ep := endpoint(p, albedo.ProtocolChatCompletions)
	c := New(Options{})
	if _, err := c.Stream(context.Background(), albedo.ModelRequest{Endpoint: ep, SessionID: "session-1"}, nil); err != nil {
		t.Fatal(err)
	}
	ep.NoPromptCacheKey = true
	if _, err := c.Stream(context.Background(), albedo.ModelRequest{Endpoint: ep, SessionID: "session-1"}, nil); err != nil {
		t.Fatal(err)
	}
	seen := p.seen()
	if seen[0].Body["prompt_cache_key"] != "session-1" {
		t.Errorf("prompt_cache_key = %v", seen[0].Body["prompt_cache_key"])
	}
	if _, ok := seen[1].Body["prompt_cache_key"]; ok {
		t.Errorf("prompt_cache_key sent though turned off: %v", seen[1].Body["prompt_cache_key"])
	}
}

func TestProviderRefusingIncludeIsAskedAgainWithoutItAndRemembered(t *testing.T) {
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"Unknown parameter: 'include'.","type":"invalid_request_error"}}`)
			return
		}
		streamEvents(w, responsesText()...)
	})
	ep := endpoint(p, albedo.ProtocolResponses)
	ep.Model = "gpt-5"
	c := New(Options{})
	for range 2 {
		reply, err := c.Stream(context.Background(), albedo.ModelRequest{Endpoint: ep}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(reply.Items) != 1 || reply.Items[0].Text != "finished" {
			t.Fatalf("reply = %+v", reply.Items)
		}
	}
	seen := p.seen()
	if len(seen) != 3 {
		t.Fatalf("%d requests, want 3 (refused, retried, remembered)", len(seen))
	}
	if _, ok := seen[0].Body["include"]; !ok {
		t.Error("first request did not ask for include")
	}
	for i, r := range seen[1:] {
		if _, ok := r.Body["include"]; ok {
			t.Errorf("request %d still asks for include", i+2)
		}
		if r.Body["reasoning"] == nil {
			t.Errorf("request %d lost the reasoning summary", i+2)
		}
	}
}

func TestOtherBadRequestsAreNotRetriedWithoutInclude(t *testing.T) {
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"model not found"}}`)
	})
	ep := endpoint(p, albedo.ProtocolResponses)
	ep.Model = "gpt-5"
	if _, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: ep}, nil); err == nil {
		t.Fatal("no error")
	}
	if n := len(p.seen()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
