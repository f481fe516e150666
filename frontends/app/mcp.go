package app

import (
	"context"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// MCPServers is what the API shows of the MCP servers and does to them:
// GET /mcp, and the approve and restart routes. Errors carry the
// domain's codes (not_found, invalid).
type MCPServers interface {
	// List shows the servers of a workspace (absolute), the user's and
	// its repository's; "" shows the user's only.
	List(ctx context.Context, workspace string) (wire.MCPList, error)
	// Approve lets a workspace's project server start, as its entry is
	// now.
	Approve(ctx context.Context, workspace, name string) (wire.MCPServer, error)
	// Restart stops the server wherever it runs and forgets its crashes;
	// its next use starts it afresh.
	Restart(ctx context.Context, workspace, name string) (wire.MCPServer, error)
}

// mcpGlance is the sidebar item of a workspace's MCP servers, when it
// has any or its configuration has problems: how many there are and run,
// and the names of those awaiting approval or failed.
func (a *App) mcpGlance(ctx context.Context, workspace string) (wire.Glance, bool) {
	if a.mcp == nil {
		return nil, false
	}
	list, err := a.mcp.List(ctx, workspace)
	if err != nil || len(list.Servers) == 0 && len(list.Problems) == 0 {
		return nil, false
	}
	running := 0
	awaiting, failed := []any{}, []any{}
	for _, s := range list.Servers {
		switch s.State {
		case wire.MCPRunning:
			running++
		case wire.MCPAwaitingApproval:
			awaiting = append(awaiting, s.Name)
		case wire.MCPFailed:
			failed = append(failed, s.Name)
		}
	}
	problems := make([]any, len(list.Problems))
	for i, p := range list.Problems {
		problems[i] = p
	}
	return wire.Glance{
		"extension": "mcp", "servers": float64(len(list.Servers)), "running": float64(running),
		"awaiting_approval": awaiting, "failed": failed, "problems": problems,
	}, true
}
