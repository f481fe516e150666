package albedo

import (
	"context"
	"encoding/json"
)

// ToolServers reaches the tool servers (Model Context Protocol servers)
// configured for the model. Each server runs for one workspace: the
// folder it starts in and, confined, may write. A server that fails,
// hangs or dies fails its own listing and calls only.
type ToolServers interface {
	// Tools lists the tools of the servers a workspace has, starting
	// those not running yet (each within its own startup timeout). A
	// server that cannot be listed is named in the Problems; it never
	// fails the listing.
	Tools(ctx context.Context, workspace string) ServerTools
	// TurnTools lists them for a turn's request, as Tools does, but waits
	// for a server's listing (its start included) only a short while
	// from when that listing began: a server not listed by then is named
	// in Pending and left out, its listing goes on, and a later listing
	// offers its tools. A server that hangs so delays no turn past that
	// while, and no other server's tools.
	TurnTools(ctx context.Context, workspace string) ServerTools
	// Call calls one tool with its arguments (a JSON object, or empty for
	// none) within the server's call timeout; a cancelled ctx cancels the
	// call on the server too. The error says what happened to the call:
	// not started, answered with an error, timed out, interrupted, or
	// lost with its outcome unknown. A result with IsError is the tool's
	// own failure.
	Call(ctx context.Context, workspace string, ref ServerToolRef, arguments json.RawMessage) (ServerResult, error)
	// Ask makes one of the other requests of a server the Python binding
	// passes on (its resources and prompts) and returns the server's
	// answer whole, as JSON. Its errors say what happened as Call's do.
	Ask(ctx context.Context, workspace, server string, q ServerQuery) (json.RawMessage, error)
}

// ServerQueryKind names a request Ask makes.
type ServerQueryKind string

// The requests of a server Ask makes.
const (
	// QueryResources lists the server's resources and resource templates.
	QueryResources ServerQueryKind = "resources"
	// QueryReadResource reads the resource of URI.
	QueryReadResource ServerQueryKind = "read_resource"
	// QueryPrompts lists the server's prompts.
	QueryPrompts ServerQueryKind = "prompts"
	// QueryGetPrompt gets the prompt Name filled with Arguments.
	QueryGetPrompt ServerQueryKind = "get_prompt"
)

// ServerQuery is a request Ask makes of a server.
type ServerQuery struct {
	Kind ServerQueryKind
	// URI names the resource QueryReadResource reads.
	URI string
	// Name names the prompt QueryGetPrompt gets; Arguments fill it.
	Name      string
	Arguments map[string]string
}

// ServerToolRef names one tool of one server.
type ServerToolRef struct{ Server, Tool string }

// String returns the "server/tool" reference the Python binding takes.
func (r ServerToolRef) String() string { return r.Server + "/" + r.Tool }

// ServerTool is one tool of a tool server, as the model may be offered it.
type ServerTool struct {
	Ref ServerToolRef
	// Name is the function name the model calls it by: mcp_<server>_<tool>
	// made acceptable to every provider, stable while the configuration
	// does not change.
	Name        string
	Description string
	// Parameters is the JSON Schema of its arguments, repaired for the
	// providers.
	Parameters json.RawMessage
}

// ServerTools is a listing of the tools of a workspace's servers.
type ServerTools struct {
	// Tools are in the servers' name order, each server's in its own.
	Tools []ServerTool
	// Problems say, one each, which servers could not be listed and why.
	Problems []string
	// Pending name, in name order, the servers whose listing had not
	// ended when TurnTools stopped waiting (also in Problems).
	Pending []string
}

// ServerResult is what a tool of a server gave.
type ServerResult struct {
	// Text is the result's text parts one after another, or its
	// structured content as JSON when no text came, with a line naming
	// each resource or audio part.
	Text string
	// Images are the images of the result, as the server sent them.
	Images []ServerImage
	// IsError says the tool reported a failure; Text says what.
	IsError bool
	// Raw is the whole result as the server sent it (content,
	// structuredContent, isError), for the Python binding.
	Raw json.RawMessage
}

// ServerImage is one image of a result.
type ServerImage struct {
	MimeType string
	Data     []byte
}
