package albedo_test

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/projection"
)

func TestLookupWindow(t *testing.T) {
	model := func(ctx int64) albedo.CatalogModel { return albedo.CatalogModel{Context: ctx} }
	cat := albedo.Catalog{Providers: map[string]albedo.CatalogProvider{
		"openai": {API: "https://api.openai.com/v1", Models: map[string]albedo.CatalogModel{
			"gpt-5": model(400000), "gpt-4o": model(128000),
		}},
		"router": {API: "https://router.example/api/v1", Models: map[string]albedo.CatalogModel{
			"openai/gpt-5": model(400000), "meta/llama": model(131072), "qwen/coder": model(32768),
		}},
		"local": {API: "http://127.0.0.1:8080/v1", Models: map[string]albedo.CatalogModel{
			"llama": model(8192), "coder": model(65536),
		}},
		"nowhere": {Models: map[string]albedo.CatalogModel{"coder": model(16384), "no-limit": {}}},
	}}
	tests := []struct {
		name, model, baseURL string
		want                 int64
		problem              bool
	}{
		{"exact key", "gpt-4o", "https://elsewhere.example/v1", 128000, false},
		{"last segment, all agree", "gpt-5", "https://elsewhere.example/v1", 400000, false},
		{"key with a slash", "openai/gpt-5", "", 400000, false},
		{"collision settled by host and port", "llama", "http://127.0.0.1:8080/v1/", 8192, false},
		{"collision settled by host, default port", "llama", "https://router.example:443/other", 131072, false},
		{"collision left unknown", "llama", "https://elsewhere.example/v1", 0, true},
		{"collision among hosts that differ by port", "coder", "http://127.0.0.1:9090/v1", 0, true},
		{"unknown model", "mystery", "https://api.openai.com/v1", 0, false},
		{"model without a limit", "no-limit", "", 0, false},
		{"no model", "", "https://api.openai.com/v1", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problem := albedo.LookupWindow(cat, tt.model, tt.baseURL)
			if got != tt.want || (problem != "") != tt.problem {
				t.Errorf("LookupWindow(%q, %q) = %d, %q; want %d, problem %v", tt.model, tt.baseURL, got, problem, tt.want, tt.problem)
			}
			if tt.problem && !strings.Contains(problem, "contextWindow") {
				t.Errorf("problem %q does not say how to fix it", problem)
			}
		})
	}
}

func TestMeasureContext(t *testing.T) {
	user := albedo.Item{Kind: albedo.KindUser, Text: "hello"}
	reply := albedo.Item{Kind: albedo.KindAssistant, Text: strings.Repeat("x", 400)}
	marker := albedo.Item{Kind: albedo.KindTurn, Text: albedo.TurnFinished}
	appended := int64(0)
	for _, raw := range projection.Project([]albedo.Item{reply}, albedo.ProtocolChatCompletions) {
		appended += int64(len(raw)) + 1
	}
	tests := []struct {
		name   string
		last   *albedo.RequestRow
		want   int64
		source string
	}{
		{"no request yet", nil, -1, ""},
		{"provider count plus what came since", &albedo.RequestRow{Items: 1, Bytes: 4000, Usage: albedo.Usage{InputTokens: albedo.Tokens(900)}, Outcome: albedo.OutcomeOK}, 900 + appended/4, albedo.UsedFromProvider},
		{"estimate when the provider sent no count", &albedo.RequestRow{Items: 1, Bytes: 4000, Outcome: albedo.OutcomeError}, 1000 + appended/4, albedo.UsedFromEstimate},
		{"nothing appended since", &albedo.RequestRow{Items: 2, Bytes: 4000, Usage: albedo.Usage{InputTokens: albedo.Tokens(7)}}, 7, albedo.UsedFromProvider},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := projection.MeasureContext(tt.last, []albedo.Item{user, reply, marker}, albedo.ProtocolChatCompletions)
			if tt.want < 0 {
				if got.Used != nil || got.Source != "" {
					t.Errorf("size = %v %q, want unknown", *got.Used, got.Source)
				}
				return
			}
			if got.Used == nil || *got.Used != tt.want || got.Source != tt.source {
				t.Errorf("size = %+v, want %d from %s", got, tt.want, tt.source)
			}
		})
	}
}

func TestPercent(t *testing.T) {
	if p := albedo.Percent(albedo.Tokens(84000), albedo.Tokens(136000)); p == nil || *p != 61.8 {
		t.Errorf("percent = %v, want 61.8", p)
	}
	if albedo.Percent(albedo.Tokens(1), nil) != nil || albedo.Percent(nil, albedo.Tokens(1)) != nil {
		t.Error("a percentage of something unknown")
	}
}
