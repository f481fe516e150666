package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// MCPServers lists the MCP servers of a workspace (an absolute path): the
// user's and its repository's; "" lists the user's only.
func (c *Client) MCPServers(ctx context.Context, workspace string) (wire.MCPList, error) {
	path := "/mcp"
	if workspace != "" {
		path += "?" + url.Values{"workspace": {workspace}}.Encode()
	}
	var out wire.MCPList
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out, nil); err != nil {
		return wire.MCPList{}, fmt.Errorf("list MCP servers: %w", err)
	}
	return out, nil
}

// ApproveMCP lets the project server name of the workspace's repository
// start, as its entry is now.
func (c *Client) ApproveMCP(ctx context.Context, workspace, name string) (wire.MCPServer, error) {
	return c.actOnMCP(ctx, "approve", workspace, name)
}

// RestartMCP stops an MCP server of the workspace and forgets its
// crashes; its next use starts it afresh.
func (c *Client) RestartMCP(ctx context.Context, workspace, name string) (wire.MCPServer, error) {
	return c.actOnMCP(ctx, "restart", workspace, name)
}

// actOnMCP posts action (approve, restart) to the server name of the
// workspace and returns the server as it is then.
func (c *Client) actOnMCP(ctx context.Context, action, workspace, name string) (wire.MCPServer, error) {
	var out wire.MCPServer
	if _, err := c.do(ctx, http.MethodPost, "/mcp/"+url.PathEscape(name)+"/"+action, wire.MCPTarget{Workspace: workspace}, &out, nil); err != nil {
		return wire.MCPServer{}, fmt.Errorf("%s MCP server %s: %w", action, name, err)
	}
	return out, nil
}
