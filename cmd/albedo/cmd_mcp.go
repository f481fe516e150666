package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
)

// mcp is "albedo mcp": the MCP servers' subcommands.
func mcp() group {
	return group{name: "mcp", subs: []subcommand{
		{"list", "albedo mcp [list] [--json] [--workspace DIR]", "list the MCP servers of the workspace: state, tools, last error", listMCP},
		{"approve", "albedo mcp approve [--workspace DIR] NAME", "let the repository's own server NAME (.mcp.json, .vscode/mcp.json) start, as its entry is now", approveMCP},
		{"restart", "albedo mcp restart [--workspace DIR] NAME", "stop server NAME and forget its crashes; its next use starts it", restartMCP},
		{"logs", "albedo mcp logs [--workspace DIR] NAME", "print the end of what server NAME wrote to stderr, and its last error", logsMCP},
	}, note: "The workspace is the current folder unless --workspace names another; its repository's\nservers are those of .mcp.json and .vscode/mcp.json at the repository root."}
}

// mcpArgs parses an mcp subcommand's flags, checks it got n arguments,
// resolves the workspace and dials.
func mcpArgs(ctx context.Context, e *env, fs *flag.FlagSet, args []string, n int) (*client.Client, string, error) {
	dir := fs.String("workspace", "", "the workspace `DIR` (default: the current folder)")
	if err := parse(fs, args); err != nil {
		return nil, "", err
	}
	if fs.NArg() != n {
		want := "no arguments"
		if n == 1 {
			want = "one server NAME"
		}
		return nil, "", usageError{fmt.Sprintf("%s takes %s", fs.Name(), want)}
	}
	workspace, err := workspaceDir(*dir)
	if err != nil {
		return nil, "", err
	}
	c, err := e.dial(ctx)
	return c, workspace, err
}

func listMCP(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	asJSON := fs.Bool("json", false, "print the list as JSON")
	c, workspace, err := mcpArgs(ctx, e, fs, args, 0)
	if err != nil {
		return err
	}
	list, err := c.MCPServers(ctx, workspace)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, list)
	}
	if len(list.Servers) == 0 {
		fmt.Fprintln(e.stdout, "no MCP servers: configure them in extensions.json (mcp.servers) or the repository's .mcp.json")
	} else {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSTATE\tTOOLS\tSOURCE\tRUNS")
		for _, s := range list.Servers {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.Name, s.State, len(s.Tools), s.Source, clip(s.Runs, 60))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, s := range list.Servers {
		if s.State == wire.MCPAwaitingApproval {
			fmt.Fprintf(e.stdout, "%s (%s) starts only once approved: albedo mcp approve %s\n", s.Name, s.Source, s.Name)
		}
		if s.LastError != "" {
			fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, firstLine(s.LastError))
		}
	}
	for _, p := range list.Problems {
		fmt.Fprintf(e.stdout, "problem: %s\n", p)
	}
	return nil
}

// approveMCP is "albedo mcp approve NAME".
var approveMCP = actOnMCP((*client.Client).ApproveMCP, func(s wire.MCPServer) string {
	return fmt.Sprintf("approved %s (%s): %s", s.Name, s.Source, s.Runs)
})

// restartMCP is "albedo mcp restart NAME".
var restartMCP = actOnMCP((*client.Client).RestartMCP, func(s wire.MCPServer) string {
	return fmt.Sprintf("restarted %s: its next use starts it", s.Name)
})

// actOnMCP returns the subcommand that does act to the server NAME of the
// workspace and prints what say makes of the server as it is then.
func actOnMCP(act func(*client.Client, context.Context, string, string) (wire.MCPServer, error), say func(wire.MCPServer) string) func(context.Context, *env, *flag.FlagSet, []string) error {
	return func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
		c, workspace, err := mcpArgs(ctx, e, fs, args, 1)
		if err != nil {
			return err
		}
		s, err := act(c, ctx, workspace, fs.Arg(0))
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, say(s))
		return nil
	}
}

func logsMCP(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	c, workspace, err := mcpArgs(ctx, e, fs, args, 1)
	if err != nil {
		return err
	}
	list, err := c.MCPServers(ctx, workspace)
	if err != nil {
		return err
	}
	for _, s := range list.Servers {
		if s.Name != fs.Arg(0) {
			continue
		}
		if s.Stderr == "" && s.LastError == "" {
			fmt.Fprintf(e.stderr, "%s (%s) has written nothing to stderr\n", s.Name, s.State)
			return nil
		}
		fmt.Fprint(e.stdout, s.Stderr)
		if s.Stderr != "" && !strings.HasSuffix(s.Stderr, "\n") {
			fmt.Fprintln(e.stdout)
		}
		if s.LastError != "" {
			fmt.Fprintf(e.stderr, "last error: %s\n", s.LastError)
		}
		return nil
	}
	return fmt.Errorf("no MCP server %q is configured for %s", fs.Arg(0), workspace)
}
