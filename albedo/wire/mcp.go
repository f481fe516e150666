package wire

// MCP server states, as GET /mcp reports them.
const (
	// MCPAwaitingApproval: a project's server the user has not approved
	// (or whose entry changed since); it does not start.
	MCPAwaitingApproval = "awaiting_approval"
	// MCPIdle: not running; its next use starts it.
	MCPIdle = "idle"
	// MCPStarting: a start is under way.
	MCPStarting = "starting"
	// MCPRunning: connected.
	MCPRunning = "running"
	// MCPWaiting: it crashed or failed to start and may start again
	// after a wait.
	MCPWaiting = "waiting"
	// MCPFailed: it crashed or failed to start too often in a row and
	// is not started again until restarted or reconfigured.
	MCPFailed = "failed"
)

// MCPList is the answer of GET /mcp: the MCP servers of a workspace.
type MCPList struct {
	// Workspace is the folder asked about, "" for the user's servers
	// only; Root is its repository root, where project servers are read.
	Workspace string `json:"workspace,omitempty"`
	Root      string `json:"root,omitempty"`
	// Servers are the user's (extensions.json) and the project's, by
	// name.
	Servers []MCPServer `json:"servers"`
	// Problems say what was wrong with the configuration or the project
	// files; the servers concerned are left out.
	Problems []string `json:"problems,omitempty"`
}

// MCPServer is one MCP server as GET /mcp shows it.
type MCPServer struct {
	Name string `json:"name"`
	// Source is where it is configured: "extensions.json", ".mcp.json"
	// or ".vscode/mcp.json".
	Source string `json:"source"`
	// Transport is "stdio" or "http"; Runs its command line or URL.
	Transport string `json:"transport"`
	Runs      string `json:"runs"`
	// State is one of the MCP* states.
	State string `json:"state"`
	// Tools are the tools of its last listing, empty before its first
	// start.
	Tools []MCPTool `json:"tools"`
	// Exposure says how the model reaches its tools: "functions" (as
	// function tools beside python, and from Python) or "python" (from
	// Python only).
	Exposure string `json:"exposure"`
	// Crashes counts its crashes and failed starts in a row.
	Crashes int `json:"crashes,omitempty"`
	// LastError is the last failure of a start, listing or call.
	LastError string `json:"last_error,omitempty"`
	// Stderr is the end of what a stdio server wrote to stderr.
	Stderr string `json:"stderr,omitempty"`
}

// MCPTool is one tool of an MCP server.
type MCPTool struct {
	// Tool is the server's name for it; Function the name the model calls
	// it by.
	Tool     string `json:"tool"`
	Function string `json:"function,omitempty"`
}

// MCPTarget is the body of POST /mcp/{server}/approve and
// /mcp/{server}/restart: the workspace whose server is meant.
type MCPTarget struct {
	Workspace string `json:"workspace"`
}
