package mcp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeServerVariable makes this test binary run as the fake stdio server
// instead of the tests; its value is written to stderr as the server
// starts, and names a marker file the server creates.
const fakeServerVariable = "ALBEDO_TEST_MCP_FAKE"

// listGateVariable names a FIFO on which the fake server's first tools/list
// waits: it answers once the test opened the FIFO for writing and closed
// it, and hangs until then.
const listGateVariable = "ALBEDO_TEST_MCP_LIST_GATE"

// TestMain runs the fake server when the tests start this binary as one.
func TestMain(m *testing.M) {
	if marker, ok := os.LookupEnv(fakeServerVariable); ok {
		fmt.Fprintln(os.Stderr, "fake server starting")
		if marker != "" {
			_ = os.WriteFile(marker, []byte(fmt.Sprint(os.Getpid())), 0o600)
		}
		server := fakeServer()
		if gate := os.Getenv(listGateVariable); gate != "" {
			server.AddReceivingMiddleware(gateFirstListing(gate))
		}
		if err := server.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "fake server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer is a server scripted to answer, fail, hang, crash and answer
// large, for the tests over stdio and HTTP alike.
func fakeServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, nil)
	text := func(t string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: t}}}
	}
	object := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "says its text back", InputSchema: object},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("echo: " + string(req.Params.Arguments)), nil
		})
	s.AddTool(&sdk.Tool{Name: "env", Description: "its environment", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Join(os.Environ(), "\n")), nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "crash", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "big", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Repeat("x", 1<<20)), nil
		})
	s.AddTool(&sdk.Tool{Name: "picture", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG fake")}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "structured", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"n": 3}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "rpcerror", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return nil, fmt.Errorf("no database")
		})
	s.AddTool(&sdk.Tool{Name: "refs", InputSchema: map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type":    "object",
		"$defs":   map[string]any{"point": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "number"}}}},
		"properties": map[string]any{
			"at":   map[string]any{"$ref": "#/$defs/point"},
			"tags": map[string]any{"type": "array"},
		},
	}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ok"), nil })
	s.AddResource(&sdk.Resource{Name: "note", URI: "fake://note", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "a note"}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Arguments: []*sdk.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
		})
	return s
}

// gateFirstListing holds the first tools/list until the FIFO gate is
// opened for writing and closed.
func gateFirstListing(gate string) sdk.Middleware {
	var once sync.Once
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" {
				once.Do(func() {
					fmt.Fprintln(os.Stderr, "listing held")
					_, _ = os.ReadFile(gate)
				})
			}
			return next(ctx, method, req)
		}
	}
}
