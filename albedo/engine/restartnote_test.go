package engine

import (
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestTheRestartNoteNamesWhatWasCutShort(t *testing.T) {
	s := &Service{tools: []toolEntry{{decl: albedo.PythonTool()}, {decl: albedo.Tool{Name: "mcp_own"}}}}
	call := func(name string) albedo.Item { return albedo.Item{Kind: albedo.KindToolCall, ToolName: name} }
	tests := []struct {
		name  string
		calls []albedo.Item
		want  string
	}{
		{"nothing running", nil, RestartNote},
		{"a cell", []albedo.Item{call("python")}, RestartCellsNote},
		{"an MCP tool call", []albedo.Item{call("mcp_fs_write")},
			RestartNote + " The MCP tool call mcp_fs_write, which was running then, was stopped and not run again: its outcome is unknown, check its effects before repeating it."},
		{"a program's own tool named like an MCP tool", []albedo.Item{call("mcp_own")},
			RestartNote + " The tool call mcp_own, which was running then, was stopped and not run again: its outcome is unknown, check its effects before repeating it."},
		{"a cell and two MCP tool calls", []albedo.Item{call("mcp_a_x"), call("python"), call("mcp_b_y")},
			RestartNote + " A python cell, the MCP tool call mcp_a_x and the MCP tool call mcp_b_y, which were running then, were stopped and not run again: their outcome is unknown, check their effects before repeating them."},
		{"two cells and a tool call", []albedo.Item{call("python"), call("python"), call("lint")},
			RestartNote + " 2 python cells and the tool call lint, which were running then, were stopped and not run again: their outcome is unknown, check their effects before repeating them."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.restartNote(tt.calls); got != tt.want {
				t.Errorf("restartNote =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
