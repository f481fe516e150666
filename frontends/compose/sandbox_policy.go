package compose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// parseSandboxPolicy reads the "sandbox" settings of extensions.json.
// Missing fields keep their defaults; an invalid value keeps its default
// too and is reported in problems, one sentence each, so a typo never
// loosens the policy.
func parseSandboxPolicy(raw json.RawMessage) (albedo.SandboxPolicy, []string) {
	p := albedo.DefaultSandboxPolicy()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return p, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return p, []string{"sandbox must be an object; using the defaults"}
	}
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		value := fields[name]
		switch name {
		case "mode":
			var m string
			_ = json.Unmarshal(value, &m) // a non-string leaves m empty: invalid
			switch albedo.SandboxMode(m) {
			case albedo.SandboxWorkspaceWrite, albedo.SandboxReadOnly, albedo.SandboxOff:
				p.Mode = albedo.SandboxMode(m)
			default:
				report("sandbox.mode %s is not one of workspace-write, read-only, off; using %s", value, p.Mode)
			}
		case "network", "required":
			var b bool
			if err := json.Unmarshal(value, &b); err != nil {
				report("sandbox.%s %s is not true or false; using the default", name, value)
				continue
			}
			if name == "network" {
				p.Network = b
			} else {
				p.Required = b
			}
		case "writable", "hidden":
			paths, bad := sandboxPaths(value)
			for _, b := range bad {
				report("sandbox.%s: %s is not an absolute path or one starting with ~/; ignored", name, b)
			}
			if name == "writable" {
				p.Writable = paths
			} else {
				p.Hidden = paths
			}
		case "limits":
			p.Limits, problems = parseSandboxLimits(value, p.Limits, problems)
		default:
			report("sandbox.%s is not a setting albedo knows; ignored", name)
		}
	}
	return p, problems
}

// sandboxPaths reads a list of paths, returning the valid ones and the
// rest as written.
func sandboxPaths(value json.RawMessage) (paths, bad []string) {
	var list []json.RawMessage
	if err := json.Unmarshal(value, &list); err != nil {
		return nil, []string{string(value) + " (not a list of paths)"}
	}
	for _, item := range list {
		var s string
		if err := json.Unmarshal(item, &s); err != nil || !(filepath.IsAbs(s) || strings.HasPrefix(s, "~/")) {
			bad = append(bad, string(item))
			continue
		}
		paths = append(paths, s)
	}
	return paths, bad
}

// sandboxLimitNames are the settings of sandbox.limits, each a whole
// number, 0 for no bound.
var sandboxLimitNames = []string{"processes", "memory_mib", "tmp_mib"}

// parseSandboxLimits reads the "limits" object of the sandbox settings
// over the defaults in limits; an invalid value keeps its default and is
// added to problems.
func parseSandboxLimits(raw json.RawMessage, limits albedo.SandboxLimits, problems []string) (albedo.SandboxLimits, []string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return limits, append(problems, fmt.Sprintf("sandbox.limits %s is not an object; using the default limits", raw))
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(sandboxLimitNames, name) {
			problems = append(problems, fmt.Sprintf("sandbox.limits.%s is not a limit albedo knows (%s); ignored", name, strings.Join(sandboxLimitNames, ", ")))
			continue
		}
		var n int
		if err := json.Unmarshal(fields[name], &n); err != nil || n < 0 {
			problems = append(problems, fmt.Sprintf("sandbox.limits.%s %s is not a whole number of 0 or more; using the default", name, fields[name]))
			continue
		}
		switch name {
		case "processes":
			limits.Processes = n
		case "memory_mib":
			limits.MemoryMiB = n
		case "tmp_mib":
			limits.TempMiB = n
		}
	}
	return limits, problems
}
