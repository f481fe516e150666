package mcp

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// everythingVariable names the mcp-server-everything program that
// scripts/test.sh installs from the npm registry (a pinned version, in a
// scratch prefix). Without it the test is skipped, except under CI.
const everythingVariable = "ALBEDO_TEST_MCP_EVERYTHING"

// everything returns the configuration of the real third-party server,
// skipping the test when it is not installed.
func everything(t *testing.T) ServerConfig {
	t.Helper()
	program := os.Getenv(everythingVariable)
	if program == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: scripts/test.sh installs the server", everythingVariable)
		}
		t.Skipf("%s is not set (scripts/test.sh installs @modelcontextprotocol/server-everything)", everythingVariable)
	}
	return ServerConfig{Name: "everything", Command: program, Args: []string{"stdio"},
		StartupTimeout: 60 * time.Second, CallTimeout: 60 * time.Second}
}

func TestServerEverythingOffersValidToolsAndAnswersCalls(t *testing.T) {
	conn := connectStdio(t, everything(t), Options{Env: []string{"PATH=" + os.Getenv("PATH")}})
	tools, err := conn.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) < 5 {
		t.Fatalf("server-everything offered %d tools", len(tools))
	}
	refs := make([]ToolRef, len(tools))
	for i, tool := range tools {
		refs[i] = tool.Ref
		t.Run(tool.Ref.Tool, func(t *testing.T) { checkRepaired(t, tool.Schema) })
	}
	for ref, name := range ToolNames(refs) {
		if !validName.MatchString(name) {
			t.Errorf("%s is named %q, which providers refuse", ref, name)
		}
	}

	res, err := conn.Call(context.Background(), "echo", map[string]any{"message": "over stdio"})
	if err != nil || res.IsError || !strings.Contains(res.Text, "over stdio") {
		t.Errorf("echo = %+v, %v", res, err)
	}
	image := "get-tiny-image"
	res, err = conn.Call(context.Background(), image, nil)
	if err != nil || len(res.Images) == 0 || !strings.HasPrefix(res.Images[0].MIMEType, "image/") || len(res.Images[0].Data) == 0 {
		t.Errorf("%s = %d images, %v", image, len(res.Images), err)
	}
}
