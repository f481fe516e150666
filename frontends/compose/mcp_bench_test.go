package compose

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMCPToolsOfAWorkspaceWithoutServers measures what a turn's
// listing of MCP tools costs a daemon with none configured: reading the
// home's extensions.json (stat, and the sandbox policy), finding the
// workspace's repository root and its absent .mcp.json and
// .vscode/mcp.json, and the approvals.
func BenchmarkMCPToolsOfAWorkspaceWithoutServers(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "extensions.json"), []byte(`{"models": {"refreshHours": 0}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	workspace := filepath.Join(b.TempDir(), "repo", "sub")
	if err := os.MkdirAll(filepath.Join(workspace, "..", ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	m := newMCP(dir, nil, nil)
	defer m.Close()
	for b.Loop() {
		if list := m.Tools(context.Background(), workspace); len(list.Tools)+len(list.Problems) != 0 {
			b.Fatalf("tools of no servers: %+v", list)
		}
	}
}
