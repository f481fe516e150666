package compose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/mcp"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// fakeRunner reports runs and counts restarts.
type fakeRunner struct {
	runs      []serverRun
	listed    albedo.ServerTools
	restarted []string
}

func (f *fakeRunner) Runs() []serverRun                { return f.runs }
func (f *fakeRunner) Listed(string) albedo.ServerTools { return f.listed }
func (f *fakeRunner) Restart(name string) bool {
	f.restarted = append(f.restarted, name)
	return true
}

// mcpFixture is a home configuring one server and a repository naming
// another.
func mcpFixture(t *testing.T, runner mcpRunner) (*mcpServers, string, string) {
	t.Helper()
	dir, root := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "extensions.json"), `{"mcp": {"servers": {"mine": {"command": "my-server", "args": ["--fast"]}, "bad": {"url": "http://example.com"}}}}`)
	write(filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(filepath.Join(root, ".mcp.json"), `{"mcpServers": {"theirs": {"command": "node", "args": ["server.js"]}}}`)
	m := newMCPServers(Options{}, dir, runner)
	m.now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	return m, dir, root
}

func TestMCPListShowsTheUsersAndTheProjectsServers(t *testing.T) {
	runner := &fakeRunner{}
	m, _, root := mcpFixture(t, runner)
	ctx := context.Background()
	runner.runs = []serverRun{{Name: "mine", Workspace: root, State: wire.MCPRunning, Tools: []string{"search", "fetch"}, Stderr: "ready\n"}}
	runner.listed = albedo.ServerTools{Tools: []albedo.ServerTool{
		{Ref: albedo.ServerToolRef{Server: "mine", Tool: "search"}, Name: "mcp_mine_search", Parameters: []byte(`{"type":"object"}`)},
		{Ref: albedo.ServerToolRef{Server: "mine", Tool: "fetch"}, Name: "mcp_mine_fetch", Parameters: []byte(`{"type":"object"}`)},
	}}

	list, err := m.List(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if list.Root != root || len(list.Servers) != 2 || len(list.Problems) != 1 || !strings.Contains(list.Problems[0], "mcp.servers.bad") {
		t.Fatalf("list = %+v", list)
	}
	mine, theirs := list.Servers[0], list.Servers[1]
	if mine.Name != "mine" || mine.Source != "extensions.json" || mine.State != wire.MCPRunning || mine.Runs != "my-server --fast" || mine.Stderr != "ready\n" ||
		len(mine.Tools) != 2 || mine.Tools[0] != (wire.MCPTool{Tool: "search", Function: "mcp_mine_search"}) {
		t.Errorf("the user's server = %+v", mine)
	}
	if theirs.Name != "theirs" || theirs.Source != ".mcp.json" || theirs.State != wire.MCPAwaitingApproval || theirs.Transport != "stdio" {
		t.Errorf("the project's server = %+v", theirs)
	}

	if mine.Exposure != "functions" {
		t.Errorf("a server within the budget is offered as %q", mine.Exposure)
	}
	// A server whose schemas would take more than the budget is reached
	// through Python only.
	runner.listed.Tools[1].Parameters = []byte(`{"type":"object","description":"` + strings.Repeat("x", engine.ServerToolBudget) + `"}`)
	if list, err = m.List(ctx, root); err != nil || list.Servers[0].Exposure != "python" {
		t.Errorf("a server over the budget: %+v, %v", list.Servers[0], err)
	}

	// Without a workspace only the user's servers show.
	list, err = m.List(ctx, "")
	if err != nil || len(list.Servers) != 1 || list.Servers[0].Name != "mine" {
		t.Errorf("the user's alone = %+v, %v", list, err)
	}
	if _, err := m.List(ctx, "relative/dir"); albedo.ErrorCode(err) != albedo.EInvalid {
		t.Errorf("a relative workspace: %v", err)
	}
}

func TestMCPApproveLetsAProjectServerStartUntilItsEntryChanges(t *testing.T) {
	m, dir, root := mcpFixture(t, nil)
	ctx := context.Background()
	s, err := m.Approve(ctx, root, "theirs")
	if err != nil || s.State != wire.MCPIdle {
		t.Fatalf("approve = %+v, %v", s, err)
	}
	if _, err := os.Stat(filepath.Join(dir, mcp.ApprovalsFile)); err != nil {
		t.Errorf("the approval is not kept in the home: %v", err)
	}
	// A subfolder of the repository has the same project servers.
	sub := filepath.Join(root, "pkg")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if s, err := m.one(ctx, sub, "theirs"); err != nil || s.State != wire.MCPIdle {
		t.Errorf("from a subfolder = %+v, %v", s, err)
	}
	if err := os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(`{"mcpServers": {"theirs": {"command": "node", "args": ["other.js"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := m.one(ctx, root, "theirs"); err != nil || s.State != wire.MCPAwaitingApproval {
		t.Errorf("after an edit = %+v, %v", s, err)
	}

	for _, tt := range []struct {
		workspace, name, code string
	}{
		{root, "nothing", albedo.ENotFound},
		{root, "mine", albedo.EInvalid},
		{"", "theirs", albedo.EInvalid},
	} {
		if _, err := m.Approve(ctx, tt.workspace, tt.name); albedo.ErrorCode(err) != tt.code {
			t.Errorf("approve %q in %q: %v, want %s", tt.name, tt.workspace, err, tt.code)
		}
	}
}

func TestMCPRestartRestartsAConfiguredServerOnly(t *testing.T) {
	runner := &fakeRunner{}
	m, _, root := mcpFixture(t, runner)
	ctx := context.Background()
	if _, err := m.Restart(ctx, root, "mine"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Restart(ctx, root, "nothing"); albedo.ErrorCode(err) != albedo.ENotFound {
		t.Errorf("restart of an unknown server: %v", err)
	}
	if len(runner.restarted) != 1 || runner.restarted[0] != "mine" {
		t.Errorf("restarted %v", runner.restarted)
	}
}
