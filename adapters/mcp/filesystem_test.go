package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// filesystemVariable names the mcp-server-filesystem program that
// scripts/test.sh installs from the npm registry beside server-everything.
const filesystemVariable = "ALBEDO_TEST_MCP_FILESYSTEM"

// filesystem returns the configuration of the real third-party file
// server allowed the folder dir, skipping the test when it is not
// installed.
func filesystem(t *testing.T, dir string) ServerConfig {
	t.Helper()
	program := os.Getenv(filesystemVariable)
	if program == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: scripts/test.sh installs the server", filesystemVariable)
		}
		t.Skipf("%s is not set (scripts/test.sh installs @modelcontextprotocol/server-filesystem)", filesystemVariable)
	}
	return ServerConfig{Name: "filesystem", Command: program, Args: []string{dir},
		StartupTimeout: 60 * time.Second, CallTimeout: 60 * time.Second}
}

func TestServerFilesystemOffersValidToolsAndReadsItsFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("read through MCP"), 0o600); err != nil {
		t.Fatal(err)
	}
	conn := connectStdio(t, filesystem(t, dir), Options{Env: []string{"PATH=" + os.Getenv("PATH")}})
	tools, err := conn.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]ToolRef, len(tools))
	offered := map[string]bool{}
	for i, tool := range tools {
		refs[i], offered[tool.Ref.Tool] = tool.Ref, true
		t.Run(tool.Ref.Tool, func(t *testing.T) { checkRepaired(t, tool.Schema) })
	}
	for ref, name := range ToolNames(refs) {
		if !validName.MatchString(name) {
			t.Errorf("%s is named %q, which providers refuse", ref, name)
		}
	}
	read := "read_text_file"
	if !offered[read] {
		t.Fatalf("server-filesystem offers no %s among %v", read, refs)
	}
	res, err := conn.Call(context.Background(), read, map[string]any{"path": filepath.Join(dir, "note.txt")})
	if err != nil || res.IsError || !strings.Contains(res.Text, "read through MCP") {
		t.Errorf("%s = %+v, %v", read, res, err)
	}
	res, err = conn.Call(context.Background(), read, map[string]any{"path": "/etc/hostname"})
	if err == nil && !res.IsError {
		t.Errorf("%s outside its folder = %+v, not an error", read, res)
	}
}
