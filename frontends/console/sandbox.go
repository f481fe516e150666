package console

import (
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// sandboxModes says in words what each sandbox mode lets the model's
// Python write.
var sandboxModes = map[string]string{
	"workspace-write": "the model's Python may write in this session's folder, its own temporary folder and the writable folders listed",
	"read-only":       "the model's Python may write only in its own temporary folder and the writable folders listed",
	"off":             "nothing confines the model's Python: it runs with your rights",
}

// sandboxDetail is what /sandbox shows of a session's sandbox glance:
// the mode in words, the network, the folders it may write and may not
// read, what the machine enforces, and where the policy is set.
func sandboxDetail(g wire.Glance) string {
	mode, _ := g["mode"].(string)
	if mode == "" {
		return "this daemon runs no sandbox: the model's Python runs with your rights"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox: %s", mode)
	if words, ok := sandboxModes[mode]; ok {
		fmt.Fprintf(&b, " (%s)", words)
	}
	if mode != "off" {
		if network, ok := g["network"].(bool); ok {
			b.WriteString("\nnetwork: " + map[bool]string{true: "allowed", false: "refused"}[network])
		}
		for _, part := range []struct{ key, label string }{
			{"writable", "writable"},
			{"hidden", "unreadable"},
			{"enforced", "enforced"},
			{"not_enforced", "not enforced by this machine"},
		} {
			if list := glanceStrings(g, part.key); len(list) > 0 {
				fmt.Fprintf(&b, "\n%s: %s", part.label, strings.Join(list, ", "))
			}
		}
		if required, _ := g["required"].(bool); required {
			b.WriteString("\nrequired: a cell fails when the machine cannot enforce the whole policy")
		}
	}
	if kernel, _ := g["kernel"].(string); kernel != "" {
		b.WriteString("\nkernel: " + kernel)
	}
	for _, p := range glanceStrings(g, "problems") {
		b.WriteString("\nignored setting: " + p)
	}
	b.WriteString("\nthe \"sandbox\" object of extensions.json sets the policy; a change applies from the session's next kernel")
	return b.String()
}

// glanceStrings reads a list of strings from a glance.
func glanceStrings(g wire.Glance, key string) []string {
	list, _ := g[key].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
