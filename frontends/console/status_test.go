package console

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func TestSandboxText(t *testing.T) {
	tests := []struct {
		name        string
		glance      wire.Glance
		want, short string
	}{
		{"no glance", nil, "", ""},
		{"default", wire.Glance{"extension": "sandbox", "mode": "workspace-write", "network": true, "not_enforced": []any{}}, "sandbox: workspace-write", "sandbox"},
		{"offline, short", wire.Glance{"mode": "read-only", "network": false, "not_enforced": []any{"udp", "mptcp"}}, "sandbox: read-only, offline, 2 not enforced", ""},
		{"short of its policy", wire.Glance{"mode": "workspace-write", "network": true, "not_enforced": []any{"signals"}}, "sandbox: workspace-write, 1 not enforced", "sandbox: 1 not enforced"},
		{"off", wire.Glance{"mode": "off", "network": true}, "sandbox off", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, short := sandboxText(tt.glance); got != tt.want || short != tt.short {
				t.Errorf("sandboxText = %q, %q; want %q, %q", got, short, tt.want, tt.short)
			}
		})
	}
}

func TestTheSandboxModeGoesUnnamedBeforeAMessageIsCut(t *testing.T) {
	line := statusLine{Provider: "fixture", Model: "fixture-model", Note: "editing the last queued message",
		Sandbox: "sandbox: workspace-write", SandboxShort: "sandbox"}
	wide, _ := statusText(line, 0)
	full := width(stripTags(wide))
	tests := []struct {
		width int
		want  []string
	}{
		{0, []string{"editing the last queued message", "sandbox: workspace-write"}},
		{full + 1, []string{"editing the last queued message", "sandbox: workspace-write"}},
		{full - 5, []string{"editing the last queued message", "│ sandbox"}},
	}
	for _, tt := range tests {
		got, rows := statusText(line, tt.width)
		for _, w := range tt.want {
			if !strings.Contains(stripTags(got), w) {
				t.Errorf("statusText at %d cells = %q, lacks %q", tt.width, stripTags(got), w)
			}
		}
		if rows != 1 {
			t.Errorf("statusText at %d cells took %d rows", tt.width, rows)
		}
	}
}

func TestSandboxDetail(t *testing.T) {
	tests := []struct {
		name   string
		glance wire.Glance
		want   []string
	}{
		{"no sandbox", nil, []string{"this daemon runs no sandbox"}},
		{"read-only and offline", wire.Glance{
			"mode": "read-only", "network": false, "required": true, "kernel": "not running",
			"writable": []any{"/data"}, "hidden": []any{"/home/me/.albedo", "/home/me/.ssh"},
			"enforced": []any{"filesystem_writes"}, "not_enforced": []any{"udp", "mptcp"},
			"problems": []any{`mode "x" is not a mode`},
		}, []string{
			"sandbox: read-only (the model's Python may write only in its own temporary folder",
			"network: refused", "writable: /data", "unreadable: /home/me/.albedo, /home/me/.ssh",
			"enforced: filesystem_writes", "not enforced by this machine: udp, mptcp", "required: a cell fails",
			"kernel: not running", `ignored setting: mode "x" is not a mode`, "extensions.json",
		}},
		{"off", wire.Glance{"mode": "off", "network": true, "hidden": []any{"/x"}}, []string{
			"sandbox: off (nothing confines the model's Python", "extensions.json",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sandboxDetail(tt.glance)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("sandboxDetail lacks %q:\n%s", w, got)
				}
			}
			if tt.glance["mode"] == "off" && strings.Contains(got, "unreadable") {
				t.Errorf("sandboxDetail of an off sandbox lists hidden paths:\n%s", got)
			}
		})
	}
}

func TestTheStatusLineCountsRunningJobs(t *testing.T) {
	tests := []struct {
		jobs int
		want string
	}{
		{0, ""},
		{1, "⚙ 1 job running"},
		{3, "⚙ 3 jobs running"},
	}
	for _, tt := range tests {
		got, _ := statusText(statusLine{Model: "m", Jobs: tt.jobs}, 0)
		got = stripTags(got)
		if tt.want == "" && strings.Contains(got, "running") || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("statusText with %d jobs = %q, want %q", tt.jobs, got, tt.want)
		}
	}
}
