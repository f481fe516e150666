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
