package compose

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/albedo-agent/albedo/adapters/mcp"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/albedo-agent/albedo/frontends/home"
)

// userSource is where the user's own servers are configured.
const userSource = home.ExtensionsFile

// serverRun is what the servers' runner knows of one server run for one
// workspace.
type serverRun struct {
	Name, Workspace, State string
	// Tools are the tools of its last listing, in the server's terms.
	Tools     []string
	Crashes   int
	LastError string
	Stderr    string
}

// mcpRunner runs the servers: it says what runs and what the tools of a
// workspace's servers were last listed as, and restarts a server.
type mcpRunner interface {
	Runs() []serverRun
	Listed(workspace string) albedo.ServerTools
	Restart(name string) bool
}

// mcpServers answers the API's MCP routes from the home's configuration,
// the workspace's project files, the approvals and the runner.
type mcpServers struct {
	// config reads the user's servers (extensions.json, read anew).
	config func() mcp.Config
	// hidden are the folders no project file may lie under, the home
	// among them.
	hidden func(ctx context.Context) []string
	// approvals are the user's approvals of project servers.
	approvals *mcp.Approvals
	// runner runs the servers; nil for none yet.
	runner mcpRunner
	now    func() time.Time
}

var _ app.MCPServers = (*mcpServers)(nil)

// newMCPServers returns the MCP routes' answers for the home dir.
func newMCPServers(opts Options, dir string, runner mcpRunner) *mcpServers {
	return &mcpServers{
		config:    func() mcp.Config { return userServers(opts, dir) },
		hidden:    hiddenPaths(dir),
		approvals: mcp.NewApprovals(dir),
		runner:    runner,
		now:       time.Now,
	}
}

// userServers reads the mcp section of the home's extensions.json.
func userServers(opts Options, dir string) mcp.Config {
	ext, err := home.ReadExtensions(dir)
	if err != nil {
		return mcp.Config{Servers: map[string]mcp.ServerConfig{}, Problems: []string{err.Error()}}
	}
	return mcp.ParseConfig(ext["mcp"])
}

// workspaceServers are the servers of a workspace, or the user's alone
// for "".
func (m *mcpServers) workspaceServers(ctx context.Context, workspace string) (mcp.WorkspaceServers, string, error) {
	user := m.config()
	if workspace == "" {
		return m.approvals.Workspace(user, mcp.Project{}), "", nil
	}
	if !filepath.IsAbs(workspace) {
		return mcp.WorkspaceServers{}, "", albedo.Errorf(albedo.EInvalid, "workspace %q is not an absolute path", workspace)
	}
	project := mcp.ReadProject(filepath.Clean(workspace), m.hidden(ctx))
	return m.approvals.Workspace(user, project), project.Root, nil
}

// List implements app.MCPServers.
func (m *mcpServers) List(ctx context.Context, workspace string) (wire.MCPList, error) {
	w, root, err := m.workspaceServers(ctx, workspace)
	if err != nil {
		return wire.MCPList{}, err
	}
	runs := m.runs(workspace)
	list := wire.MCPList{Workspace: workspace, Root: root, Servers: []wire.MCPServer{}, Problems: w.Problems}
	names := make([]string, 0, len(w.Servers)+len(w.Waiting))
	for name := range w.Servers {
		names = append(names, name)
	}
	for _, s := range w.Waiting {
		names = append(names, s.Config.Name)
	}
	sort.Strings(names)
	functions, pythonOnly := m.offered(workspace, runs)
	for _, name := range names {
		s := m.server(w, name, runs[name], functions)
		if slices.Contains(pythonOnly, name) {
			s.Exposure = "python"
		}
		list.Servers = append(list.Servers, s)
	}
	return list, nil
}

// offered returns the function names of the tools of a workspace's
// servers and the servers offered through Python only, as the model was
// last offered them (by the budget a turn applies); for "" the names the
// runs' tools get.
func (m *mcpServers) offered(workspace string, runs map[string]*serverRun) (map[mcp.ToolRef]string, []string) {
	if workspace == "" || m.runner == nil {
		return functionNames(runs), nil
	}
	listed := m.runner.Listed(workspace)
	names := make(map[mcp.ToolRef]string, len(listed.Tools))
	for _, t := range listed.Tools {
		names[mcp.ToolRef{Server: t.Ref.Server, Tool: t.Ref.Tool}] = t.Name
	}
	return names, engine.PythonOnlyServers(listed.Tools)
}

// server describes one server of a workspace.
func (m *mcpServers) server(w mcp.WorkspaceServers, name string, run *serverRun, functions map[mcp.ToolRef]string) wire.MCPServer {
	cfg, runnable := w.Servers[name]
	source := userSource
	if p, ok := w.Project[name]; ok {
		cfg, source = p.Config, p.File
	}
	s := wire.MCPServer{Name: name, Source: source, Transport: "http", Runs: mcp.Runs(cfg), State: wire.MCPIdle, Tools: []wire.MCPTool{}, Exposure: "functions"}
	if cfg.Stdio() {
		s.Transport = "stdio"
	}
	switch {
	case !runnable:
		s.State = wire.MCPAwaitingApproval
	case run != nil:
		s.State, s.Crashes, s.LastError, s.Stderr = run.State, run.Crashes, run.LastError, run.Stderr
		for _, tool := range run.Tools {
			s.Tools = append(s.Tools, wire.MCPTool{Tool: tool, Function: functions[mcp.ToolRef{Server: name, Tool: tool}]})
		}
	}
	return s
}

// runs returns the runner's runs of a workspace's servers by name; for
// "" the run of each server that says most (running before the others).
func (m *mcpServers) runs(workspace string) map[string]*serverRun {
	out := map[string]*serverRun{}
	if m.runner == nil {
		return out
	}
	for _, r := range m.runner.Runs() {
		if workspace != "" && r.Workspace != workspace {
			continue
		}
		if prev, ok := out[r.Name]; ok && prev.State == wire.MCPRunning {
			continue
		}
		out[r.Name] = &r
	}
	return out
}

// functionNames names the tools of the runs as the model is offered them.
func functionNames(runs map[string]*serverRun) map[mcp.ToolRef]string {
	var refs []mcp.ToolRef
	for _, r := range runs {
		for _, tool := range r.Tools {
			refs = append(refs, mcp.ToolRef{Server: r.Name, Tool: tool})
		}
	}
	return mcp.ToolNames(refs)
}

// Approve implements app.MCPServers.
func (m *mcpServers) Approve(ctx context.Context, workspace, name string) (wire.MCPServer, error) {
	if workspace == "" {
		return wire.MCPServer{}, albedo.Errorf(albedo.EInvalid, "approving a project's MCP server needs the workspace whose repository names it")
	}
	w, _, err := m.workspaceServers(ctx, workspace)
	if err != nil {
		return wire.MCPServer{}, err
	}
	p, ok := w.Project[name]
	if !ok {
		if _, mine := w.Servers[name]; mine {
			return wire.MCPServer{}, albedo.Errorf(albedo.EInvalid, "MCP server %q is configured in extensions.json and needs no approval", name)
		}
		return wire.MCPServer{}, albedo.Errorf(albedo.ENotFound, "the repository of %s names no MCP server %q in .mcp.json or .vscode/mcp.json", workspace, name)
	}
	if err := m.approvals.Approve(p, m.now()); err != nil {
		return wire.MCPServer{}, err
	}
	return m.one(ctx, workspace, name)
}

// Restart implements app.MCPServers.
func (m *mcpServers) Restart(ctx context.Context, workspace, name string) (wire.MCPServer, error) {
	if _, err := m.one(ctx, workspace, name); err != nil {
		return wire.MCPServer{}, err
	}
	if m.runner != nil {
		m.runner.Restart(name)
	}
	return m.one(ctx, workspace, name)
}

// one describes one server of a workspace, not_found when it has none of
// that name.
func (m *mcpServers) one(ctx context.Context, workspace, name string) (wire.MCPServer, error) {
	list, err := m.List(ctx, workspace)
	if err != nil {
		return wire.MCPServer{}, err
	}
	for _, s := range list.Servers {
		if s.Name == name {
			return s, nil
		}
	}
	return wire.MCPServer{}, albedo.Errorf(albedo.ENotFound, "no MCP server %q is configured%s", name, forWorkspace(workspace))
}

// forWorkspace names the workspace in a message, if any.
func forWorkspace(workspace string) string {
	if workspace == "" {
		return " in extensions.json"
	}
	return " for " + workspace
}
