package compose

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/adapters/landlock"
	"github.com/albedo-agent/albedo/adapters/mcp"
	"github.com/albedo-agent/albedo/adapters/pykernel"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// mcpExtension is the key of the MCP servers in extensions.json.
const mcpExtension = "mcp"

// MCPLogDir is the folder of the home holding each MCP server's stderr.
const MCPLogDir = "logs"

// mcpCaches are the folders a confined MCP server may write beside its
// workspace: the package caches npx, uvx and pip fill.
var mcpCaches = []string{"~/.npm", "~/.cache"}

// newMCP returns the manager of the MCP servers of each workspace: the
// user's, of the home's extensions.json, and the repository's own the
// user approved; confined by sb (nil: unconfined).
func newMCP(dir string, sb *landlock.Sandbox, log *slog.Logger) *mcp.Manager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client := mcp.NewClient(mcp.Options{
		Env:     pykernel.Environment(os.Environ()),
		Confine: confineServer(dir, sb, log),
		Logger:  log,
		LogDir:  filepath.Join(dir, MCPLogDir),
	})
	user := &mcpConfig{dir: dir, log: log}
	approvals := mcp.NewApprovals(dir)
	hidden := hiddenPaths(dir)
	config := func(workspace string) mcp.Config {
		cfg := user.read()
		if workspace == "" {
			return cfg
		}
		w := approvals.Workspace(cfg, mcp.ReadProject(filepath.Clean(workspace), hidden(context.Background())))
		return mcp.Config{Servers: w.Servers, Problems: w.Problems}
	}
	return mcp.NewManager(mcp.ManagerOptions{Client: client, Config: config, Logger: log})
}

// mcpRuns adapts the manager to what the MCP routes show of its runs.
type mcpRuns struct{ m *mcp.Manager }

// Runs reports the manager's runs.
func (r mcpRuns) Runs() []serverRun {
	st := r.m.Status()
	out := make([]serverRun, len(st))
	for i, s := range st {
		out[i] = serverRun{Name: s.Name, Workspace: s.Workspace, State: s.State, Tools: s.Tools, Crashes: s.Crashes, LastError: s.LastError, Stderr: s.Stderr}
	}
	return out
}

// Listed reports the tools of a workspace's servers as last listed.
func (r mcpRuns) Listed(workspace string) albedo.ServerTools { return r.m.Listed(workspace) }

// Restart restarts every run of the named server.
func (r mcpRuns) Restart(name string) bool { return r.m.Restart(name) }

// mcpConfig reads the mcp section of extensions.json again whenever the
// file changed.
type mcpConfig struct {
	dir string
	log *slog.Logger

	mu      sync.Mutex
	modTime time.Time
	size    int64
	read0   bool
	cfg     mcp.Config
}

// read returns the configuration in force, parsing the file again when
// its time or size changed; problems are logged once per change.
func (c *mcpConfig) read() mcp.Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	var modTime time.Time
	var size int64 = -1
	if info, err := os.Stat(filepath.Join(c.dir, home.ExtensionsFile)); err == nil {
		modTime, size = info.ModTime(), info.Size()
	}
	if c.read0 && modTime.Equal(c.modTime) && size == c.size {
		return c.cfg
	}
	c.read0, c.modTime, c.size = true, modTime, size
	ext, err := home.ReadExtensions(c.dir)
	if err != nil {
		c.log.Warn("mcp servers not read", "err", err)
		c.cfg = mcp.Config{Servers: map[string]mcp.ServerConfig{}, Problems: []string{err.Error()}}
		return c.cfg
	}
	c.cfg = mcp.ParseConfig(ext[mcpExtension])
	for _, p := range c.cfg.Problems {
		c.log.Warn("mcp server configuration", "problem", p)
	}
	return c.cfg
}

// confineServer starts each stdio MCP server through the sandbox's
// helper under the server's own policy: its mode, the network, the
// package caches writable, albedo's home, the credentials and the
// kernel's hidden paths unreadable. The helper leads a PID namespace of
// its own, so that nothing the server starts outlives it.
func confineServer(dir string, sb *landlock.Sandbox, log *slog.Logger) func(context.Context, mcp.Launch) (mcp.Launch, error) {
	if sb == nil {
		return nil
	}
	return func(ctx context.Context, l mcp.Launch) (mcp.Launch, error) {
		kernel, _ := readSandboxPolicy(dir)
		policy := albedo.SandboxPolicy{Mode: albedo.SandboxMode(l.Sandbox), Network: true, Writable: mcpCaches, Hidden: kernel.Hidden}
		if policy.Mode == "" {
			policy.Mode = albedo.SandboxWorkspaceWrite
		}
		c, err := sb.Confine(ctx, landlock.Start{SessionID: "mcp:" + l.Server, Workspace: l.Workspace, Argv: l.Argv, Env: l.Env, Policy: &policy})
		if err != nil {
			log.Warn("mcp server refused by the sandbox", "mcp_server", l.Server, "err", err)
			return mcp.Launch{}, err
		}
		if st := c.Status; len(st.NotEnforced) > 0 {
			log.Info("mcp server sandboxed short of its policy", "mcp_server", l.Server, "mode", st.Policy.Mode, "not_enforced", st.NotEnforced)
		}
		l.Argv, l.Env, l.Release, l.PIDNamespace = c.Argv, c.Env, c.Release, c.PIDNamespace
		return l, nil
	}
}
