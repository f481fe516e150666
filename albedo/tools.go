package albedo

import (
	"context"
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
