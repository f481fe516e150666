package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// resourceListing is what QueryResources answers: the server's resources
// and its resource templates.
type resourceListing struct {
	Resources []*sdk.Resource         `json:"resources"`
	Templates []*sdk.ResourceTemplate `json:"resourceTemplates"`
}

// Ask makes one of the requests the Python binding passes on whole (see
// albedo.ServerQuery) within the server's call timeout, and returns the
// server's answer as JSON. A server that offers no resources or prompts
// answers an empty listing.
func (c *Conn) Ask(ctx context.Context, q albedo.ServerQuery) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.CallTimeout)
	defer cancel()
	caps := c.session.InitializeResult().Capabilities
	var answer any
	var err error
	var doing string
	switch q.Kind {
	case albedo.QueryResources:
		doing = "listing its resources"
		list := resourceListing{Resources: []*sdk.Resource{}, Templates: []*sdk.ResourceTemplate{}}
		if caps != nil && caps.Resources != nil {
			for r, e := range c.session.Resources(ctx, nil) {
				if err = e; err != nil {
					break
				}
				list.Resources = append(list.Resources, r)
			}
			for r, e := range c.session.ResourceTemplates(ctx, nil) {
				if err == nil && e != nil {
					err = e
				}
				if err != nil {
					break
				}
				list.Templates = append(list.Templates, r)
			}
		}
		answer = list
	case albedo.QueryReadResource:
		doing = "reading resource " + q.URI
		answer, err = c.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: q.URI})
	case albedo.QueryPrompts:
		doing = "listing its prompts"
		prompts := []*sdk.Prompt{}
		if caps != nil && caps.Prompts != nil {
			for p, e := range c.session.Prompts(ctx, nil) {
				if err = e; err != nil {
					break
				}
				prompts = append(prompts, p)
			}
		}
		answer = map[string]any{"prompts": prompts}
	case albedo.QueryGetPrompt:
		doing = "getting prompt " + q.Name
		answer, err = c.session.GetPrompt(ctx, &sdk.GetPromptParams{Name: q.Name, Arguments: q.Arguments})
	default:
		return nil, fmt.Errorf("MCP server %q: albedo makes no request %q", c.cfg.Name, q.Kind)
	}
	if err != nil {
		return nil, c.failure(doing, ctx, err)
	}
	raw, err := json.Marshal(answer)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q, %s: encode its answer: %w", c.cfg.Name, doing, err)
	}
	return raw, nil
}

// ask makes a request of the server other than a tool call.
func (s *server) ask(ctx context.Context, q albedo.ServerQuery) (json.RawMessage, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q was not asked for %s: %w", s.cfg.Name, q.Kind, err)
	}
	s.begin()
	out, err := conn.Ask(ctx, q)
	s.end(err)
	return out, err
}

// Ask makes a request of a workspace's server other than a tool call; see
// albedo.ToolServers.
func (m *Manager) Ask(ctx context.Context, workspace, name string, q albedo.ServerQuery) (json.RawMessage, error) {
	s, err := m.serverOf(workspace, name)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q was not asked for %s: %w", name, q.Kind, err)
	}
	return s.ask(ctx, q)
}
