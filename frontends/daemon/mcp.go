package daemon

import (
	"context"
	"net/http"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/gin-gonic/gin"
)

// mcpServers returns the MCP servers' operations; when albedo has none it
// writes a not_found itself and reports false.
func (a *api) mcpServers(c *gin.Context) (app.MCPServers, bool) {
	if a.mcp == nil {
		fail(c, albedo.Errorf(albedo.ENotFound, "this albedo has no home, so no MCP servers"))
		return nil, false
	}
	return a.mcp, true
}

func (a *api) listMCP(c *gin.Context) {
	m, ok := a.mcpServers(c)
	if !ok {
		return
	}
	list, err := m.List(c.Request.Context(), c.Query("workspace"))
	answer(c, http.StatusOK, list, err)
}

func (a *api) approveMCP(c *gin.Context) { a.actOnMCP(c, app.MCPServers.Approve) }

func (a *api) restartMCP(c *gin.Context) { a.actOnMCP(c, app.MCPServers.Restart) }

// actOnMCP answers a route that does act to the server the path names,
// of the workspace the body names, with the server as it is then.
func (a *api) actOnMCP(c *gin.Context, act func(app.MCPServers, context.Context, string, string) (wire.MCPServer, error)) {
	m, ok := a.mcpServers(c)
	if !ok {
		return
	}
	var body wire.MCPTarget
	if !bind(c, &body) {
		return
	}
	s, err := act(m, c.Request.Context(), body.Workspace, c.Param("server"))
	answer(c, http.StatusOK, s, err)
}
