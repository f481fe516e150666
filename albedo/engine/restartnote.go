package engine

import (
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// restartNote is the text of the message that tells the model albedo
// restarted in the middle of its turn: RestartNote when nothing was
// running, RestartCellsNote when only python cells were, and otherwise a
// note naming each call of another tool that was cut short (an MCP
// server's or a program's), whose outcome is unknown.
func (s *Service) restartNote(calls []albedo.Item) string {
	cells := 0
	var others []string
	for _, c := range calls {
		if c.ToolName == albedo.PythonTool().Name {
			cells++
			continue
		}
		kind := "the tool call"
		if strings.HasPrefix(c.ToolName, "mcp_") && !s.ownTool(c.ToolName) {
			kind = "the MCP tool call"
		}
		others = append(others, kind+" "+c.ToolName)
	}
	switch {
	case len(calls) == 0:
		return RestartNote
	case len(others) == 0:
		return RestartCellsNote
	}
	what := others
	if cells == 1 {
		what = append([]string{"a python cell"}, others...)
	} else if cells > 1 {
		what = append([]string{fmt.Sprintf("%d python cells", cells)}, others...)
	}
	if len(calls) == 1 {
		return fmt.Sprintf("%s %s, which was running then, was stopped and not run again: its outcome is unknown, check its effects before repeating it.",
			RestartNote, upperFirst(what[0]))
	}
	return fmt.Sprintf("%s %s, which were running then, were stopped and not run again: their outcome is unknown, check their effects before repeating them.",
		RestartNote, upperFirst(strings.Join(what[:len(what)-1], ", ")+" and "+what[len(what)-1]))
}

// ownTool reports whether name is one of the program's own tools.
func (s *Service) ownTool(name string) bool {
	for _, t := range s.tools {
		if t.decl.Name == name {
			return true
		}
	}
	return false
}

// upperFirst returns text with its first letter upper case.
func upperFirst(text string) string {
	if text == "" {
		return text
	}
	return strings.ToUpper(text[:1]) + text[1:]
}
