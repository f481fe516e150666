package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// ServerToolBudget is how many bytes the declarations of tool servers'
// tools may take of a request (names, descriptions and schemas): servers
// are offered in name order while they fit; the tools of a server that
// would not fit are offered through Python only.
const ServerToolBudget = 32 << 10

// serverToolsChangedNote tells the model, with the first message of a
// turn, that the tool servers' tools differ from its last turn's.
const serverToolsChangedNote = "The MCP tools offered changed since the last turn: the tools of this request are the ones offered now."

// turnServerTools are the tool servers' tools of one turn, listed at its
// first step: the tool set changes only between turns, so that the
// provider's prompt cache holds within one.
type turnServerTools struct {
	// decls are the tools offered as functions, after albedo's own.
	decls []albedo.Tool
	// byName finds an offered tool by its function name.
	byName map[string]albedo.ServerTool
	// pythonOnly are the servers whose tools did not fit the budget.
	pythonOnly []string
	// pending are the servers not listed in time for the turn.
	pending []string
	// any says some server offered tools at all.
	any bool
}

// listServerTools lists the tools of sess's workspace's servers for a
// turn, and splits them between functions and Python within the budget.
// Without tool servers it lists nothing and costs nothing.
func (s *Service) listServerTools(ctx context.Context, sess albedo.Session) turnServerTools {
	out := turnServerTools{}
	if s.toolServers == nil {
		return out
	}
	list := s.toolServers.TurnTools(ctx, sess.Workspace)
	for _, p := range list.Problems {
		s.log.Warn("mcp server not listed", "session", sess.ID, "problem", p)
	}
	taken := map[string]bool{}
	for _, t := range s.tools {
		taken[t.decl.Name] = true
	}
	out.byName = map[string]albedo.ServerTool{}
	out.pending = list.Pending
	out.any = len(list.Pending) > 0
	pythonOnly := PythonOnlyServers(list.Tools)
	for _, group := range byServer(list.Tools) {
		out.any = true
		if slices.Contains(pythonOnly, group[0].Ref.Server) {
			out.pythonOnly = append(out.pythonOnly, group[0].Ref.Server)
			continue
		}
		for _, t := range group {
			if taken[t.Name] {
				continue // a program's own tool keeps its name
			}
			taken[t.Name] = true
			out.byName[t.Name] = t
			out.decls = append(out.decls, albedo.Tool{Name: t.Name, Description: serverToolDescription(t), Parameters: t.Parameters})
		}
	}
	return out
}

// PythonOnlyServers names the servers, of tools listed server by server,
// whose tools are offered through Python only: servers are offered as
// functions in their order while their declarations (names,
// descriptions, schemas) fit ServerToolBudget; one that would not fit is
// left to Python, and the next ones may still fit.
func PythonOnlyServers(tools []albedo.ServerTool) []string {
	var out []string
	used := 0
	for _, group := range byServer(tools) {
		size := 0
		for _, t := range group {
			size += len(t.Name) + len(serverToolDescription(t)) + len(t.Parameters)
		}
		if used+size > ServerToolBudget {
			out = append(out, group[0].Ref.Server)
			continue
		}
		used += size
	}
	return out
}

// byServer groups tools listed server by server.
func byServer(tools []albedo.ServerTool) [][]albedo.ServerTool {
	var out [][]albedo.ServerTool
	for i, t := range tools {
		if i == 0 || tools[i-1].Ref.Server != t.Ref.Server {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], t)
	}
	return out
}

// serverToolDescription is a tool's description as the model reads it:
// the server's, after a mention of where it comes from.
func serverToolDescription(t albedo.ServerTool) string {
	head := fmt.Sprintf("MCP tool %s.", t.Ref)
	if d := strings.TrimSpace(t.Description); d != "" {
		return head + " " + d
	}
	return head
}

// instructions returns the lines the turn's instructions get about the
// tool servers: how Python reaches them, and which are Python only.
func (t turnServerTools) instructions() string {
	if !t.any {
		return ""
	}
	text := "MCP servers' tools are also reachable from Python: `await mcp.tools()` lists them, `await mcp.call(\"server/tool\", **arguments)` calls one and returns its whole result (use it for results too long to read, or to call many)."
	if len(t.pythonOnly) > 0 {
		text += fmt.Sprintf(" The tools of %s are offered through Python only: list them with `await mcp.tools(\"%s\")`.", strings.Join(t.pythonOnly, ", "), t.pythonOnly[0])
	}
	if len(t.pending) > 0 {
		text += fmt.Sprintf(" The tools of %s are not listed yet (still starting or listing): they are offered from a later turn, and `await mcp.tools(\"%s\")` waits for them.", strings.Join(t.pending, ", "), t.pending[0])
	}
	return text
}

// fingerprint sums the offered names and the Python-only servers.
func (t turnServerTools) fingerprint() [32]byte {
	names := make([]string, len(t.decls))
	for i, d := range t.decls {
		names[i] = d.Name
	}
	return sha256.Sum256([]byte(strings.Join(names, "\n") + "\x00" + strings.Join(t.pythonOnly, "\n")))
}

// serverToolState remembers the server tools a session's model was last
// told of, to note changes between turns.
type serverToolState struct {
	mu    sync.Mutex
	known bool
	sum   [32]byte
}

// note returns what the model is told with the turn's first message when
// the tool servers' tools changed since the turn that last told it.
func (st *serverToolState) note(t turnServerTools) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.known || st.sum == t.fingerprint() {
		return ""
	}
	return serverToolsChangedNote
}

// noted records that the model knows the tools of t.
func (st *serverToolState) noted(t turnServerTools) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.known, st.sum = true, t.fingerprint()
}
