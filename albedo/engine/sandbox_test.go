package engine_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestSandboxInstruction(t *testing.T) {
	tests := []struct {
		name       string
		status     albedo.SandboxStatus
		says       []string
		doesNotSay []string
	}{
		{
			name:       "workspace-write",
			status:     albedo.SandboxStatus{Policy: albedo.DefaultSandboxPolicy()},
			says:       []string{"Sandbox (workspace-write)", "the workspace, $TMPDIR", "network is open", "PermissionError"},
			doesNotSay: []string{"Not enforced"},
		},
		{
			name:   "read-only, offline, extra folders",
			status: albedo.SandboxStatus{Policy: albedo.SandboxPolicy{Mode: albedo.SandboxReadOnly, Writable: []string{"~/.cache"}}},
			says:   []string{"only in $TMPDIR, ~/.cache", "network connections are refused"},
		},
		{
			name:   "what the machine lacks",
			status: albedo.SandboxStatus{Policy: albedo.DefaultSandboxPolicy(), NotEnforced: []string{"filesystem_writes", "hidden_reads"}},
			says:   []string{"Not enforced on this machine: filesystem_writes, hidden_reads."},
		},
		{
			name:   "off",
			status: albedo.SandboxStatus{Policy: albedo.SandboxPolicy{Mode: albedo.SandboxOff}},
			says:   []string{"Sandbox: off"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := albedo.SandboxInstruction(tt.status)
			if strings.Contains(line, "\n") {
				t.Errorf("instruction %q is more than one line", line)
			}
			for _, s := range tt.says {
				if !strings.Contains(line, s) {
					t.Errorf("instruction %q does not say %q", line, s)
				}
			}
			for _, s := range tt.doesNotSay {
				if strings.Contains(line, s) {
					t.Errorf("instruction %q says %q", line, s)
				}
			}
		})
	}
}

// fakeSandbox reports a fixed status, and one for the session that ran.
type fakeSandbox struct {
	next    albedo.SandboxStatus
	running map[string]albedo.SandboxStatus
}

func (f *fakeSandbox) Status(context.Context) albedo.SandboxStatus { return f.next }

func (f *fakeSandbox) Session(_ context.Context, id string) (albedo.SandboxStatus, bool) {
	st, ok := f.running[id]
	return st, ok
}

func TestTheSandboxReachesGlancesAndInstructions(t *testing.T) {
	r := newRig(t, func(albedo.ModelRequest) fakes.Reply { return fakes.Text("done") })
	offline := albedo.SandboxPolicy{Mode: albedo.SandboxReadOnly}
	sb := &fakeSandbox{
		next:    albedo.SandboxStatus{Policy: albedo.DefaultSandboxPolicy(), Enforced: []string{"filesystem_writes"}, NotEnforced: []string{}},
		running: map[string]albedo.SandboxStatus{},
	}
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: r.store, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock, Sandbox: sb})
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	r.svc = svc
	idle, ran := r.session(respProvider), r.session(respProvider)
	sb.running[ran.ID] = albedo.SandboxStatus{Policy: offline, Writable: []string{"/tmp/k"}, Enforced: []string{"tcp"}, NotEnforced: []string{"udp"}, Running: true}

	tests := []struct {
		session string
		want    albedo.Glance
		says    string
	}{
		{idle.ID, albedo.Glance{
			"extension": "sandbox", "mode": "workspace-write", "network": true, "required": false, "kernel": "not running",
			"writable": []any{}, "hidden": []any{}, "enforced": []any{"filesystem_writes"}, "not_enforced": []any{},
		}, "Sandbox (workspace-write)"},
		{ran.ID, albedo.Glance{
			"extension": "sandbox", "mode": "read-only", "network": false, "required": false, "kernel": "running",
			"writable": []any{"/tmp/k"}, "hidden": []any{}, "enforced": []any{"tcp"}, "not_enforced": []any{"udp"},
		}, "Not enforced on this machine: udp."},
	}
	for _, tt := range tests {
		glances, err := svc.Glances(r.ctx, tt.session)
		if err != nil {
			t.Fatal(err)
		}
		if last := glances[len(glances)-1]; !reflect.DeepEqual(last, tt.want) {
			t.Errorf("sandbox glance:\n got %#v\nwant %#v", last, tt.want)
		}
		r.turn(tt.session, "hello")
		reqs := r.provider.Requests()
		got := reqs[len(reqs)-1].Instructions
		if !strings.HasPrefix(got, albedo.DefaultInstructions+"\nSandbox") || !strings.Contains(got, tt.says) {
			t.Errorf("instructions end %q, want the sandbox line saying %q", got[len(albedo.DefaultInstructions):], tt.says)
		}
	}
	if st, ok := svc.SandboxStatus(r.ctx); !ok || st.Policy.Mode != albedo.SandboxWorkspaceWrite {
		t.Errorf("SandboxStatus = %+v, %v", st, ok)
	}
}
