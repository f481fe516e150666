package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// serverHostCalls are the host calls of the kernel's mcp group, through
// which a cell reaches the session's MCP servers and gets their answers
// whole: call and tools, resources and prompts. None without tool
// servers.
func (s *Service) serverHostCalls() []albedo.HostCall {
	if s.toolServers == nil {
		return nil
	}
	server := albedo.HostParam{Name: "server"}
	return []albedo.HostCall{
		{HostCallDecl: albedo.HostCallDecl{Name: "mcp.call", Params: []albedo.HostParam{{Name: "tool"}, {Name: "arguments", Keywords: true}},
			Doc: "Calls the MCP tool \"server/tool\" with the keyword arguments and returns its whole result:\n" +
				"the server's content (a list of parts), structuredContent if any, isError,\n" +
				"and text, every text part joined. A server that is not running, answers\n" +
				"an error, times out or is lost raises HostError saying which; nothing is\n" +
				"tried again."}, Func: s.hostServerCall},
		{HostCallDecl: albedo.HostCallDecl{Name: "mcp.tools", Params: []albedo.HostParam{{Name: "server", Optional: true}},
			Doc: "Lists the tools of every MCP server, or of the one named: dicts with tool\n" +
				"(\"server/tool\"), server, name, function (the model's name for it, when\n" +
				"offered as one), description and input_schema."}, Func: s.hostServerTools},
		{HostCallDecl: albedo.HostCallDecl{Name: "mcp.resources", Params: []albedo.HostParam{server},
			Doc: "Lists the resources and resource templates of the MCP server named."}, Func: s.hostServerAsk(albedo.QueryResources)},
		{HostCallDecl: albedo.HostCallDecl{Name: "mcp.read_resource", Params: []albedo.HostParam{server, {Name: "uri"}},
			Doc: "Reads the resource uri of the MCP server named; returns its contents."}, Func: s.hostServerAsk(albedo.QueryReadResource)},
		{HostCallDecl: albedo.HostCallDecl{Name: "mcp.prompts", Params: []albedo.HostParam{server},
			Doc: "Lists the prompts of the MCP server named."}, Func: s.hostServerAsk(albedo.QueryPrompts)},
		{HostCallDecl: albedo.HostCallDecl{Name: "mcp.get_prompt", Params: []albedo.HostParam{server, {Name: "name"}, {Name: "arguments", Keywords: true}},
			Doc: "Gets the prompt name of the MCP server named, filled with the keyword\n" +
				"arguments (strings); returns its description and messages."}, Func: s.hostServerAsk(albedo.QueryGetPrompt)},
	}
}

// sessionWorkspace returns the workspace of session id.
func (s *Service) sessionWorkspace(ctx context.Context, id string) (string, error) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return "", err
	}
	return sess.Workspace, nil
}

// hostServerCall calls a server's tool for a cell and returns the whole
// result: the server's content, structuredContent and isError, and the
// text the model would read, uncut.
func (s *Service) hostServerCall(ctx context.Context, sessionID string, raw json.RawMessage) (any, error) {
	var a struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decodeArgs("mcp.call", raw, &a); err != nil {
		return nil, err
	}
	server, tool, ok := strings.Cut(a.Tool, "/")
	if !ok || server == "" || tool == "" {
		return nil, albedo.Errorf(albedo.EInvalid, "mcp.call: name the tool as \"server/tool\", not %q", a.Tool)
	}
	workspace, err := s.sessionWorkspace(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	res, err := s.toolServers.Call(ctx, workspace, albedo.ServerToolRef{Server: server, Tool: tool}, a.Arguments)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if len(res.Raw) > 0 {
		_ = json.Unmarshal(res.Raw, &out)
	}
	out["text"] = res.Text
	out["isError"] = res.IsError
	return out, nil
}

// serverToolInfo is a tool as mcp.tools() lists it.
type serverToolInfo struct {
	Tool        string          `json:"tool"`
	Server      string          `json:"server"`
	Name        string          `json:"name"`
	Function    string          `json:"function"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// hostServerTools lists the tools of the session's servers, or of one; a
// server named that could not be listed is an error saying why.
func (s *Service) hostServerTools(ctx context.Context, sessionID string, raw json.RawMessage) (any, error) {
	var a struct {
		Server *string `json:"server"`
	}
	if err := decodeArgs("mcp.tools", raw, &a); err != nil {
		return nil, err
	}
	workspace, err := s.sessionWorkspace(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	list := s.toolServers.Tools(ctx, workspace)
	out := []serverToolInfo{}
	for _, t := range list.Tools {
		if a.Server != nil && t.Ref.Server != *a.Server {
			continue
		}
		out = append(out, serverToolInfo{Tool: t.Ref.String(), Server: t.Ref.Server, Name: t.Ref.Tool, Function: t.Name, Description: t.Description, InputSchema: t.Parameters})
	}
	if a.Server != nil && len(out) == 0 {
		var why []string
		for _, p := range list.Problems {
			if strings.Contains(p, fmt.Sprintf("%q", *a.Server)) || strings.Contains(p, "mcp.servers."+*a.Server) {
				why = append(why, p)
			}
		}
		if len(why) > 0 {
			return nil, albedo.Errorf(albedo.EInvalid, "%s", strings.Join(why, "; "))
		}
	}
	return out, nil
}

// hostServerAsk returns the host call that makes the request of kind of
// a server for a cell, and answers the server's answer whole.
func (s *Service) hostServerAsk(kind albedo.ServerQueryKind) albedo.HostFunc {
	return func(ctx context.Context, sessionID string, raw json.RawMessage) (any, error) {
		var a struct {
			Server    string            `json:"server"`
			URI       string            `json:"uri"`
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		if err := decodeArgs("mcp."+string(kind), raw, &a); err != nil {
			return nil, err
		}
		workspace, err := s.sessionWorkspace(ctx, sessionID)
		if err != nil {
			return nil, err
		}
		return s.toolServers.Ask(ctx, workspace, a.Server, albedo.ServerQuery{Kind: kind, URI: a.URI, Name: a.Name, Arguments: a.Arguments})
	}
}
