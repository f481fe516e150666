package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// toolEntry is a tool of the service's registry.
type toolEntry struct {
	decl albedo.Tool
	run  func(ctx context.Context, t *turn, call albedo.Item) []albedo.Item
}

// toolName is what a tool name may be: the function names both protocols
// accept.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckTools says what is wrong with tools registered after python, if
// anything: a blank or malformed name, a name given twice (python's
// included), a missing handler, parameters that are not a JSON object.
func CheckTools(tools []albedo.ToolDef) error {
	seen := map[string]bool{albedo.PythonTool().Name: true}
	for _, t := range tools {
		switch {
		case !toolName.MatchString(t.Name):
			return fmt.Errorf("tool name %q: a tool name is 1 to 64 letters, digits, '_' or '-'", t.Name)
		case seen[t.Name]:
			return fmt.Errorf("tool %q is registered twice", t.Name)
		case t.Handler == nil:
			return fmt.Errorf("tool %q has no handler", t.Name)
		case len(t.Parameters) > 0 && !isJSONObject(t.Parameters):
			return fmt.Errorf("tool %q: its parameters must be a JSON Schema object", t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

// newToolRegistry returns the service's tools: python first, the default,
// then the program's in their order. New panics on tools CheckTools
// refuses, as a program's own mistake.
func (s *Service) newToolRegistry(tools []albedo.ToolDef) []toolEntry {
	if err := CheckTools(tools); err != nil {
		panic("engine.New: " + err.Error())
	}
	reg := []toolEntry{{decl: albedo.PythonTool(), run: s.runPython}}
	for _, t := range tools {
		decl := t.Tool
		if len(decl.Parameters) == 0 {
			decl.Parameters = []byte(`{"type":"object","properties":{}}`)
		}
		reg = append(reg, toolEntry{decl: decl, run: s.handlerRunner(t.Handler)})
	}
	return reg
}

// toolDeclarations are the tools offered to the model, python first.
func (s *Service) toolDeclarations() []albedo.Tool {
	out := make([]albedo.Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.decl
	}
	return out
}

// runCall answers one tool call: its output item, and for python and the
// tool servers' tools the images shown. A cancelled ctx yields an interrupted output
// without running anything; a name no tool has yields an error output
// paired with the call.
func (t *turn) runCall(ctx context.Context, call albedo.Item) []albedo.Item {
	s := t.s
	if ctx.Err() != nil {
		return []albedo.Item{outputItem(call, albedo.CellResult{Status: albedo.CellInterrupted, Error: "the turn was interrupted before this cell ran"}, s.now())}
	}
	for _, tool := range s.tools {
		if tool.decl.Name == call.ToolName {
			return tool.run(ctx, t, call)
		}
	}
	if tool, ok := t.servers.byName[call.ToolName]; ok {
		return t.runServerTool(ctx, call, tool)
	}
	names := make([]string, 0, len(s.tools)+len(t.servers.decls))
	for _, tool := range s.tools {
		names = append(names, tool.decl.Name)
	}
	for _, tool := range t.servers.decls {
		names = append(names, tool.Name)
	}
	msg := fmt.Sprintf("unknown tool %q: the tools are %s", call.ToolName, strings.Join(names, ", "))
	return []albedo.Item{outputItem(call, albedo.CellResult{Status: albedo.CellError, Error: msg}, s.now())}
}

// handlerRunner runs calls of a program's tool through its handler. The
// model reads the handler's text; the result (status, output or error)
// is what the API shows of the call.
func (s *Service) handlerRunner(h albedo.ToolHandler) func(context.Context, *turn, albedo.Item) []albedo.Item {
	return func(ctx context.Context, t *turn, call albedo.Item) []albedo.Item {
		began := s.clock.Now()
		out, err := callHandler(ctx, h, albedo.ToolCall{
			SessionID: t.id, Workspace: t.sess.Workspace, CallID: call.CallID, Name: call.ToolName, Arguments: call.Arguments,
		})
		res := albedo.CellResult{Status: albedo.CellOK, Output: out}
		text := out
		switch {
		case err != nil && ctx.Err() != nil:
			res = albedo.CellResult{Status: albedo.CellInterrupted, Error: "the turn was interrupted while the tool ran: " + err.Error()}
			text = "interrupted: " + err.Error()
		case err != nil:
			res = albedo.CellResult{Status: albedo.CellError, Error: err.Error()}
			text = "error: " + err.Error()
		}
		res.DurationMS = s.clock.Now().Sub(began).Milliseconds()
		item := outputItem(call, res, s.now())
		item.Text = text
		return []albedo.Item{item}
	}
}

// callHandler calls a tool's handler, turning a panic into an error.
func callHandler(ctx context.Context, h albedo.ToolHandler, call albedo.ToolCall) (out string, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = "", fmt.Errorf("the %s tool failed inside albedo: %v", call.Name, v)
		}
	}()
	return h(ctx, call)
}

// isJSONObject says whether raw is a JSON object.
func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}
