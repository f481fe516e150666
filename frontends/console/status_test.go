package console

import (
	"testing"

	"github.com/albedo-agent/albedo/frontends/client"
)

func TestSandboxText(t *testing.T) {
	tests := []struct {
		name   string
		glance client.Glance
		want   string
	}{
		{"no glance", nil, ""},
		{"default", client.Glance{"extension": "sandbox", "mode": "workspace-write", "network": true, "not_enforced": []any{}}, "sandbox"},
		{"offline, short", client.Glance{"mode": "read-only", "network": false, "not_enforced": []any{"udp", "mptcp"}}, "sandbox: read-only, offline, 2 not enforced"},
		{"short of its policy", client.Glance{"mode": "workspace-write", "network": true, "not_enforced": []any{"signals"}}, "sandbox: 1 not enforced"},
		{"off", client.Glance{"mode": "off", "network": true}, "sandbox off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sandboxText(tt.glance); got != tt.want {
				t.Errorf("sandboxText = %q, want %q", got, tt.want)
			}
		})
	}
}
