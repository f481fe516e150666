package console

import (
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// mcpDetail is what /mcp shows of a workspace's MCP servers: each with its
// state, source and tools, its last error, a waiting one with how to
// approve it, and the configuration's problems.
func mcpDetail(list wire.MCPList) string {
	var b strings.Builder
	if len(list.Servers) == 0 {
		b.WriteString("no MCP servers: configure them in extensions.json (mcp.servers) or the repository's .mcp.json")
	}
	for i, s := range list.Servers {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: %s (%s, %s) %s", s.Name, strings.ReplaceAll(s.State, "_", " "), s.Source, s.Transport, s.Runs)
		if len(s.Tools) > 0 {
			names := make([]string, len(s.Tools))
			for j, t := range s.Tools {
				names[j] = t.Tool
			}
			fmt.Fprintf(&b, "\n  %d tools (%s): %s", len(names), s.Exposure, strings.Join(names, ", "))
		}
		if s.State == wire.MCPAwaitingApproval {
			fmt.Fprintf(&b, "\n  it starts only once approved: /mcp approve %s", s.Name)
		}
		if s.LastError != "" {
			fmt.Fprintf(&b, "\n  last error: %s", firstLine(s.LastError))
		}
	}
	for _, p := range list.Problems {
		b.WriteString("\nproblem: " + p)
	}
	return b.String()
}

// firstLine is the first line of text.
func firstLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return line
}
