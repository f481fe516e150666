package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestAskPassesResourcesAndPromptsOnWhole(t *testing.T) {
	for name, connect := range map[string]func(*testing.T) *Conn{
		"stdio": func(t *testing.T) *Conn { return connectStdio(t, stdioConfig(t, ""), Options{}) },
		"http":  connectHTTP,
	} {
		t.Run(name, func(t *testing.T) {
			conn := connect(t)
			tests := []struct {
				query albedo.ServerQuery
				want  []string
			}{
				{albedo.ServerQuery{Kind: albedo.QueryResources}, []string{`"uri":"fake://note"`, `"resourceTemplates":[]`}},
				{albedo.ServerQuery{Kind: albedo.QueryReadResource, URI: "fake://note"}, []string{`"text":"a note"`}},
				{albedo.ServerQuery{Kind: albedo.QueryPrompts}, []string{`"name":"greet"`, `"name":"who"`}},
				{albedo.ServerQuery{Kind: albedo.QueryGetPrompt, Name: "greet", Arguments: map[string]string{"who": "you"}}, []string{`"text":"hello you"`}},
			}
			for _, tc := range tests {
				raw, err := conn.Ask(context.Background(), tc.query)
				for _, want := range tc.want {
					if err != nil || !strings.Contains(string(raw), want) {
						t.Errorf("Ask(%+v) = %s, %v; want %s in it", tc.query, raw, err, want)
					}
				}
			}
			_, err := conn.Ask(context.Background(), albedo.ServerQuery{Kind: albedo.QueryGetPrompt, Name: "nosuch"})
			if err == nil || !strings.Contains(err.Error(), "answered an error getting prompt nosuch") {
				t.Errorf("an unknown prompt = %v; want the server's JSON-RPC error", err)
			}
		})
	}
}

func TestTheManagerAsksOnlyConfiguredServers(t *testing.T) {
	m, _, _ := managerWith(t, named(t, "b", ""))
	ws := t.TempDir()
	raw, err := m.Ask(context.Background(), ws, "b", albedo.ServerQuery{Kind: albedo.QueryReadResource, URI: "fake://note"})
	if err != nil || !strings.Contains(string(raw), "a note") {
		t.Errorf("b's note = %s, %v", raw, err)
	}
	if _, err := m.Ask(context.Background(), ws, "nope", albedo.ServerQuery{Kind: albedo.QueryPrompts}); err == nil || !strings.Contains(err.Error(), `no MCP server "nope" is configured`) {
		t.Errorf("asking a server not configured = %v", err)
	}
}
