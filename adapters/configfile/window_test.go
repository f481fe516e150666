package configfile

import (
	"context"
	"strings"
	"testing"
)

func TestContextWindow(t *testing.T) {
	tests := []struct {
		value   string
		want    int64
		problem bool
	}{
		{`136000`, 136000, false},
		{`null`, 0, false},
		{`0`, 0, true},
		{`-5`, 0, true},
		{`1.5`, 0, true},
		{`"128k"`, 0, true},
		{`{}`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			path := write(t, `{"active": "a", "providers": {"a": {"baseUrl": "http://127.0.0.1:9/v1", "model": "m", "protocol": "responses", "contextWindow": `+tt.value+`}}}`)
			cfg, err := New(path).Load(context.Background())
			if err != nil {
				t.Fatalf("load: %v (a bad contextWindow must not stop the provider)", err)
			}
			p := cfg.Providers["a"]
			if p.ContextWindow != tt.want || (p.ContextWindowProblem != "") != tt.problem {
				t.Errorf("window %d, problem %q", p.ContextWindow, p.ContextWindowProblem)
			}
			if tt.problem && !strings.Contains(p.ContextWindowProblem, `"contextWindow" must be a positive whole number`) {
				t.Errorf("problem = %q", p.ContextWindowProblem)
			}
		})
	}
}
