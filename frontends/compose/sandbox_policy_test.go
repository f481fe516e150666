package compose

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// TestParseSandboxPolicy checks how the "sandbox" settings of
// extensions.json are read: defaults for what is absent, and one problem
// for each value that cannot be used, which keeps its default.
func TestParseSandboxPolicy(t *testing.T) {
	def := albedo.DefaultSandboxPolicy()
	limits := albedo.DefaultSandboxLimits()
	tests := []struct {
		name     string
		raw      string
		want     albedo.SandboxPolicy
		problems []string // a word each problem must hold, in order
	}{
		{name: "absent is the default", raw: ``, want: def},
		{name: "null is the default", raw: `null`, want: def},
		{name: "empty object is the default", raw: `{}`, want: def},
		{
			name: "every field",
			raw:  `{"mode":"read-only","network":false,"writable":["/cache","~/.cache/pip"],"hidden":["~/.kube"],"required":true}`,
			want: albedo.SandboxPolicy{Mode: albedo.SandboxReadOnly, Writable: []string{"/cache", "~/.cache/pip"}, Hidden: []string{"~/.kube"}, Required: true, Limits: limits},
		},
		{name: "off", raw: `{"mode":"off"}`, want: albedo.SandboxPolicy{Mode: albedo.SandboxOff, Network: true, Limits: limits}},
		{name: "a misspelt mode keeps the default", raw: `{"mode":"readonly"}`, want: def, problems: []string{"sandbox.mode"}},
		{name: "a mode that is no string keeps the default", raw: `{"mode":3}`, want: def, problems: []string{"sandbox.mode"}},
		{name: "network must be a boolean", raw: `{"network":"no"}`, want: def, problems: []string{"sandbox.network"}},
		{name: "required must be a boolean", raw: `{"required":1}`, want: def, problems: []string{"sandbox.required"}},
		{
			name:     "relative paths are dropped, the rest kept",
			raw:      `{"writable":["rel/dir","/abs"],"hidden":[7]}`,
			want:     albedo.SandboxPolicy{Mode: albedo.SandboxWorkspaceWrite, Network: true, Writable: []string{"/abs"}, Limits: limits},
			problems: []string{"sandbox.hidden", "rel/dir"},
		},
		{name: "a list that is no list", raw: `{"writable":"/abs"}`, want: def, problems: []string{"sandbox.writable"}},
		{name: "unknown settings are reported", raw: `{"mdoe":"off"}`, want: def, problems: []string{"sandbox.mdoe"}},
		{name: "not an object", raw: `[1]`, want: def, problems: []string{"object"}},
		{
			name: "limits raise or lift each bound",
			raw:  `{"limits":{"processes":4096,"memory_mib":0,"tmp_mib":20480}}`,
			want: albedo.SandboxPolicy{Mode: albedo.SandboxWorkspaceWrite, Network: true, Limits: albedo.SandboxLimits{Processes: 4096, MemoryMiB: 0, TempMiB: 20480}},
		},
		{
			name:     "an invalid limit keeps its default, the rest apply",
			raw:      `{"limits":{"processes":-1,"memory_mib":"lots","tmp_mib":64,"cpu":2}}`,
			want:     albedo.SandboxPolicy{Mode: albedo.SandboxWorkspaceWrite, Network: true, Limits: albedo.SandboxLimits{Processes: limits.Processes, MemoryMiB: limits.MemoryMiB, TempMiB: 64}},
			problems: []string{"sandbox.limits.cpu", "sandbox.limits.memory_mib", "sandbox.limits.processes"},
		},
		{name: "limits that are no object", raw: `{"limits":512}`, want: def, problems: []string{"sandbox.limits"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := parseSandboxPolicy(json.RawMessage(tt.raw))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("policy = %+v, want %+v", got, tt.want)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems = %q, want %d holding %q", problems, len(tt.problems), tt.problems)
			}
			for i, word := range tt.problems {
				if !strings.Contains(problems[i], word) {
					t.Errorf("problem %q does not say %q", problems[i], word)
				}
			}
		})
	}
}
