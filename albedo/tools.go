package albedo

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// ToolDef is a tool a program registers with the service (Options.Tools):
// the declaration offered to the model with every request, and the
// handler that answers the model's calls of it.
type ToolDef struct {
	// Tool is the declaration: name, description and the JSON Schema of
	// the arguments object.
	Tool
	// Handler answers a call of the tool.
	Handler ToolHandler
}

// ToolCall is one call of a registered tool, as its handler gets it.
type ToolCall struct {
	SessionID string
	Workspace string
	// CallID is the provider's id of the call.
	CallID string
	// Name is the tool's name.
	Name string
	// Arguments is the arguments JSON the model sent, as it sent it: it
	// may not be valid JSON.
	Arguments string
}

// ToolHandler answers a call of a tool. What it returns is the output the
// model reads, paired with its call in the next request; an error is
// shown to the model as the output "error: " and its message. A
// cancelled ctx means the turn was interrupted.
type ToolHandler func(ctx context.Context, call ToolCall) (string, error)

// toolEntry is a tool of the service's registry.
type toolEntry struct {
	decl Tool
	run  func(ctx context.Context, st *sessionState, sess Session, call Item) []Item
}

// toolName is what a tool name may be: the function names both protocols
// accept.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckTools says what is wrong with tools registered after python, if
// anything: a blank or malformed name, a name given twice (python's
// included), a missing handler, parameters that are not a JSON object.
func CheckTools(tools []ToolDef) error {
	seen := map[string]bool{PythonTool().Name: true}
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
func (s *Service) newToolRegistry(tools []ToolDef) []toolEntry {
	if err := CheckTools(tools); err != nil {
		panic("albedo.New: " + err.Error())
	}
	reg := []toolEntry{{decl: PythonTool(), run: s.runPython}}
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
func (s *Service) toolDeclarations() []Tool {
	out := make([]Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.decl
	}
	return out
}

// runCall answers one tool call: its output item, and for python the
// images the cell showed. A cancelled ctx yields an interrupted output
// without running anything; a name no tool has yields an error output
// paired with the call.
func (s *Service) runCall(ctx context.Context, st *sessionState, sess Session, call Item) []Item {
	if ctx.Err() != nil {
		return []Item{outputItem(call, CellResult{Status: CellInterrupted, Error: "the turn was interrupted before this cell ran"}, s.now())}
	}
	for _, t := range s.tools {
		if t.decl.Name == call.ToolName {
			return t.run(ctx, st, sess, call)
		}
	}
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.decl.Name
	}
	msg := fmt.Sprintf("unknown tool %q: the tools are %s", call.ToolName, strings.Join(names, ", "))
	return []Item{outputItem(call, CellResult{Status: CellError, Error: msg}, s.now())}
}

// handlerRunner runs calls of a program's tool through its handler. The
// model reads the handler's text; the result (status, output or error)
// is what the API shows of the call.
func (s *Service) handlerRunner(h ToolHandler) func(context.Context, *sessionState, Session, Item) []Item {
	return func(ctx context.Context, _ *sessionState, sess Session, call Item) []Item {
		began := s.clock.Now()
		out, err := callHandler(ctx, h, ToolCall{
			SessionID: sess.ID, Workspace: sess.Workspace, CallID: call.CallID, Name: call.ToolName, Arguments: call.Arguments,
		})
		res := CellResult{Status: CellOK, Output: out}
		text := out
		switch {
		case err != nil && ctx.Err() != nil:
			res = CellResult{Status: CellInterrupted, Error: "the turn was interrupted while the tool ran: " + err.Error()}
			text = "interrupted: " + err.Error()
		case err != nil:
			res = CellResult{Status: CellError, Error: err.Error()}
			text = "error: " + err.Error()
		}
		res.DurationMS = s.clock.Now().Sub(began).Milliseconds()
		item := outputItem(call, res, s.now())
		item.Text = text
		return []Item{item}
	}
}

// callHandler calls a tool's handler, turning a panic into an error.
func callHandler(ctx context.Context, h ToolHandler, call ToolCall) (out string, err error) {
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
