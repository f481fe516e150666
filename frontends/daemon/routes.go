package daemon

import (
	"regexp"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/gin-gonic/gin"
)

// route is one operation of the API: what the router serves and what the
// OpenAPI document says of it, from one entry, so that no route is served
// undocumented or documented unserved. Its bodies are wire types, so the
// schemas come from the types the daemon encodes and the client decodes.
type route struct {
	// method and path name the operation; path writes its parameters
	// {name}, as OpenAPI does.
	method, path string
	// handle answers the operation's requests.
	handle func(*api, *gin.Context)
	// summary says what the operation does.
	summary string
	// query names the query parameters.
	query []string
	// body is the request body's type, nil for none.
	body any
	// status and answer are the success status and body (nil: none).
	status int
	answer any
	// stream says the answer is server-sent events of answer.
	stream bool
	// media is the answer's content type when it is not JSON.
	media string
	// access says what lets a request in: the bearer token (the zero
	// value), or also the web page's login cookie, or nothing at all.
	access access
}

// access is what lets a request of a route in.
type access int

const (
	// tokenAccess lets in requests with the bearer token only.
	tokenAccess access = iota
	// pageAccess lets in the web page too, by its login cookie; its
	// writes need the page's own origin and a JSON body (see guard).
	pageAccess
	// openAccess lets in any request whose Host and Origin pass: the web
	// page's files and its login, which hold no secret.
	openAccess
)

// routes is the API: NewHandler serves it and OpenAPI documents it.
func routes() []route {
	return append(apiRoutes(), webRoutes()...)
}

// apiRoutes are the routes of programs; the web page uses those marked
// pageAccess.
func apiRoutes() []route {
	return []route{
		{method: "GET", path: "/health", handle: (*api).health, summary: "Whether the daemon is up, its API version and capabilities", access: pageAccess, status: 200, answer: wire.Health{}},
		{method: "POST", path: "/shutdown", handle: (*api).postShutdown, summary: "Stop the daemon", status: 200, answer: wire.OK{}},
		{method: "GET", path: "/openapi.json", handle: (*api).openAPI, summary: "This document", status: 200, answer: map[string]any{}},
		{method: "GET", path: "/sessions", handle: (*api).listSessions, summary: "Find sessions, most recently updated first (next page: X-Next-Cursor)", query: []string{"q", "workspace", "archived", "limit", "cursor"}, access: pageAccess, status: 200, answer: []wire.Session{}},
		{method: "POST", path: "/sessions", handle: (*api).createSession, summary: "Create a session", body: wire.CreateSession{}, access: pageAccess, status: 201, answer: wire.Session{}},
		{method: "GET", path: "/sessions/{id}", handle: (*api).getSession, summary: "A session with its last events and glances, or with ?view=configuration its configuration (wire.Config) and ETag", query: []string{"tail", "view"}, access: pageAccess, status: 200, answer: wire.SessionDetail{}},
		{method: "PATCH", path: "/sessions/{id}", handle: (*api).patchSession, summary: "Rename or archive a session (?view=configuration, If-Match)", query: []string{"view"}, body: wire.ConfigPatch{}, access: pageAccess, status: 200, answer: wire.Config{}},
		{method: "DELETE", path: "/sessions/{id}", handle: sessionAnswer((*app.App).DeleteSession), summary: "Delete a session", status: 200, answer: wire.Deleted{}},
		{method: "POST", path: "/sessions/{id}/events", handle: (*api).postEvent, summary: "Send a message", body: wire.Message{}, access: pageAccess, status: 202, answer: wire.Sent{}},
		{method: "GET", path: "/sessions/{id}/status", handle: sessionAnswer((*app.App).Status), summary: "Whether a session runs a turn", access: pageAccess, status: 200, answer: wire.Status{}},
		{method: "GET", path: "/sessions/{id}/stream", handle: (*api).stream, summary: "A session's events as server-sent events (Last-Event-ID, or ?after without it, resumes)", query: []string{"tail", "after"}, access: pageAccess, status: 200, answer: wire.EventBatch{}, stream: true},
		{method: "GET", path: "/sessions/{id}/history", handle: (*api).history, summary: "A session's transcript, whole or a page", query: []string{"after", "before", "limit"}, access: pageAccess, status: 200, answer: wire.History{}},
		{method: "GET", path: "/sessions/{id}/items/{seq}/images/{n}", handle: (*api).shownImage, summary: "Image n of an item: a message's own (n 0) or the n-th a cell showed (at its tool_result's seq), typed by its data", access: pageAccess, media: "image/*", status: 200},
		{method: "GET", path: "/sessions/{id}/tree", handle: (*api).tree, summary: "A page of a session's checkpoints", query: []string{"after", "limit"}, access: pageAccess, status: 200, answer: wire.TreePage{}},
		{method: "GET", path: "/sessions/{id}/requests", handle: (*api).requests, summary: "A page of a session's request ledger, oldest first", query: []string{"after", "limit"}, status: 200, answer: wire.RequestPage{}},
		{method: "GET", path: "/sessions/{id}/context", handle: sessionAnswer((*app.App).Context), summary: "How full a session's model context is", access: pageAccess, status: 200, answer: wire.Context{}},
		{method: "POST", path: "/sessions/{id}/fork", handle: (*api).fork, summary: "Branch a session at a checkpoint", body: wire.Fork{}, access: pageAccess, status: 201, answer: wire.Session{}},
		{method: "GET", path: "/sessions/{id}/checkpoints", handle: sessionAnswer((*app.App).Checkpoints), summary: "A session's steps with the workspace's snapshots around them: files each created, modified and deleted, and the changes made outside the session before it", status: 200, answer: wire.Checkpoints{}},
		{method: "GET", path: "/sessions/{id}/diff", handle: (*api).diff, summary: "The files that differ between two checkpoints of a session (from: default 0, to: default the last item), each with its status, line counts and patch (cut to 32 KiB a file, 512 KiB in all)", query: []string{"from", "to"}, status: 200, answer: wire.Diff{}},
		{method: "POST", path: "/sessions/{id}/rewind", handle: (*api).rewind, summary: "Put back the files an idle session's steps changed after a checkpoint (dry_run: the plan only; 409 naming the paths also changed outside it unless force)", body: wire.Rewind{}, status: 200, answer: wire.Rewound{}},
		{method: "POST", path: "/sessions/{id}/interrupt", handle: sessionAnswer((*app.App).Interrupt), summary: "Stop a session's turn", access: pageAccess, status: 200, answer: wire.Status{}},
		{method: "POST", path: "/sessions/{id}/queue/send", handle: sessionAnswer((*app.App).SendQueued), summary: "Start a turn on the messages an interrupt left queued", access: pageAccess, status: 200, answer: wire.Status{}},
		{method: "DELETE", path: "/sessions/{id}/queue/{queue}", handle: (*api).dropQueued, summary: "Drop a queued message", access: pageAccess, status: 200, answer: wire.Deleted{}},
		{method: "POST", path: "/sessions/{id}/workspace", handle: (*api).moveWorkspace, summary: "Move an idle session to another folder", body: wire.MoveWorkspace{}, status: 200, answer: wire.Moved{}},
		{method: "POST", path: "/sessions/{id}/commands", handle: (*api).command, summary: "Run a slash command", body: wire.Command{}, status: 200, answer: wire.CommandResult{}},
		{method: "GET", path: "/mcp", handle: (*api).listMCP, summary: "The MCP servers of a workspace (the user's and its repository's): state, tools, exposure, last error, stderr tail", query: []string{"workspace"}, status: 200, answer: wire.MCPList{}},
		{method: "POST", path: "/mcp/{server}/approve", handle: (*api).approveMCP, summary: "Let a repository's own MCP server start, as its entry is now", body: wire.MCPTarget{}, status: 200, answer: wire.MCPServer{}},
		{method: "POST", path: "/mcp/{server}/restart", handle: (*api).restartMCP, summary: "Stop an MCP server and forget its crashes; its next use starts it", body: wire.MCPTarget{}, status: 200, answer: wire.MCPServer{}},
		{method: "GET", path: "/extensions/paperclips/items", handle: (*api).listVents, summary: "A page of the vent ledger, newest first", query: []string{"limit", "cursor"}, access: pageAccess, status: 200, answer: wire.VentList{}},
		{method: "GET", path: "/extensions/paperclips/items/{vent}", handle: (*api).getVent, summary: "One vent and its ETag", access: pageAccess, status: 200, answer: wire.VentResource{}},
		{method: "PATCH", path: "/extensions/paperclips/items/{vent}", handle: (*api).patchVent, summary: "Reply to a vent or set its status (If-Match)", body: wire.VentPatch{}, access: pageAccess, status: 200, answer: wire.VentPatched{}},
		{method: "DELETE", path: "/extensions/paperclips/items/{vent}", handle: (*api).deleteVent, summary: "Delete a vent (If-Match)", access: pageAccess, status: 200, answer: wire.Deleted{}},
	}
}

// pathParam finds the {name} segments of a path.
var pathParam = regexp.MustCompile(`\{(\w+)\}`)
