package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// StderrLimit is how much of a stdio server's stderr is kept, the end of
// it, for the errors and status that show it.
const StderrLimit = 16 << 10

// closeGrace is how long a stdio server has to exit once its input is
// closed before it is signalled; its process group is killed after.
const closeGrace = 2 * time.Second

// Options configure a Client. The zero value works.
type Options struct {
	// Env is the environment every stdio server starts with, before the
	// variables its own configuration sets: the Python kernel's filtered
	// environment, so that a server sees no provider key and no ALBEDO_*
	// variable. Nil gives a server only PATH.
	Env []string
	// Lookup finds the daemon's variables that a configuration names as
	// ${NAME}; os.LookupEnv when nil.
	Lookup func(string) (string, bool)
	// Confine, when set, is called as each stdio server starts and returns
	// the launch to run instead: the command behind the sandbox's helper.
	// An error fails the server's start, and nothing runs.
	Confine func(ctx context.Context, l Launch) (Launch, error)
	// HTTPClient reaches streamable HTTP servers; http.DefaultClient's
	// transport when nil.
	HTTPClient *http.Client
	// Logger receives server starts, exits and failures; none when nil.
	Logger *slog.Logger
}

// Launch is how a stdio server's process starts.
type Launch struct {
	// Server is the server's name, Workspace the folder it serves.
	Server, Workspace string
	// Argv is the command line, the program first; Env the environment;
	// Dir the working folder.
	Argv, Env []string
	Dir       string
	// Release, when set, is called once the process has exited (or failed
	// to start).
	Release func()
}

// Client connects to MCP servers.
type Client struct{ opts Options }

// NewClient returns a Client configured by opts.
func NewClient(opts Options) *Client {
	if opts.Lookup == nil {
		opts.Lookup = os.LookupEnv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Client{opts: opts}
}

// Tool is one tool a server offers, as the model is shown it.
type Tool struct {
	Ref ToolRef
	// Description is the server's description of the tool.
	Description string
	// Schema is the tool's input schema, repaired (RepairSchema).
	Schema map[string]any
}

// Conn is a connection to one running server.
type Conn struct {
	cfg     ServerConfig
	session *sdk.ClientSession
	stderr  *ring
	log     *slog.Logger
	// proc is the stdio server's process, nil for an HTTP server.
	proc *exec.Cmd
	// release is Launch.Release.
	release func()
	// stderrDone is closed once a stdio server's stderr has ended.
	stderrDone chan struct{}
	// closeStderr closes the daemon's copy of the stderr pipe's writing
	// end once the server has started (or failed to).
	closeStderr func()

	closeOnce sync.Once
	closeErr  error
}

// Connect starts (stdio) or reaches (HTTP) the server cfg describes for a
// workspace, and completes the protocol's handshake, all within the
// server's startup timeout.
func (c *Client) Connect(ctx context.Context, cfg ServerConfig, workspace string) (*Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.StartupTimeout)
	defer cancel()
	conn := &Conn{cfg: cfg, stderr: newRing(StderrLimit), log: c.opts.Logger.With("mcp_server", cfg.Name)}
	var transport sdk.Transport
	var err error
	if cfg.Stdio() {
		transport, err = c.stdio(ctx, conn, workspace)
	} else {
		transport, err = c.http(cfg)
	}
	if err != nil {
		conn.kill()
		return nil, fmt.Errorf("starting MCP server %q: %w", cfg.Name, err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "albedo", Version: "1"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if conn.closeStderr != nil {
		conn.closeStderr() // the server holds its own copy now
	}
	if err != nil {
		conn.kill()
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("it did not answer within startupTimeoutMs (%d)", cfg.StartupTimeout.Milliseconds())
		}
		return nil, fmt.Errorf("starting MCP server %q: %w%s", cfg.Name, err, conn.stderrTail())
	}
	conn.session = session
	conn.log.Info("mcp server started", "stdio", cfg.Stdio())
	return conn, nil
}

// stdio prepares the transport that starts a stdio server: its
// environment, folder, confinement and process group.
func (c *Client) stdio(ctx context.Context, conn *Conn, workspace string) (sdk.Transport, error) {
	cfg := conn.cfg
	env, err := serverEnv(c.opts.Env, cfg.Env, c.opts.Lookup)
	if err != nil {
		return nil, err
	}
	dir := workspace
	if cfg.Cwd != "" {
		dir = cfg.Cwd
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(workspace, dir)
		}
	}
	l := Launch{Server: cfg.Name, Workspace: workspace, Argv: append([]string{cfg.Command}, cfg.Args...), Env: env, Dir: dir}
	if c.opts.Confine != nil {
		if l, err = c.opts.Confine(ctx, l); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.Env, cmd.Dir = l.Env, l.Dir
	if err := conn.pipeStderr(cmd); err != nil {
		return nil, err
	}
	cmd.SysProcAttr = groupAttr()
	conn.proc, conn.release = cmd, l.Release
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: closeGrace}, nil
}

// http prepares the transport to a streamable HTTP server, with its
// headers.
func (c *Client) http(cfg ServerConfig) (sdk.Transport, error) {
	headers := make(http.Header, len(cfg.Headers))
	for _, name := range sortedKeys(cfg.Headers) {
		v, err := Expand(cfg.Headers[name], c.opts.Lookup)
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", name, err)
		}
		headers.Set(name, v)
	}
	base := http.DefaultTransport
	if c.opts.HTTPClient != nil && c.opts.HTTPClient.Transport != nil {
		base = c.opts.HTTPClient.Transport
	}
	client := &http.Client{Transport: headerTransport{base: base, headers: headers}}
	return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: -1}, nil
}

// headerTransport adds a server's headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

// RoundTrip implements http.RoundTripper.
func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for name, values := range t.headers {
		req.Header[name] = values
	}
	return t.base.RoundTrip(req)
}

// serverEnv returns a stdio server's environment: base, then the
// server's own variables, ${NAME} expanded, last wins.
func serverEnv(base []string, own map[string]string, lookup func(string) (string, bool)) ([]string, error) {
	env := make([]string, 0, len(base)+len(own)+1)
	set := make(map[string]int)
	put := func(name, value string) {
		if i, ok := set[name]; ok {
			env[i] = name + "=" + value
			return
		}
		set[name] = len(env)
		env = append(env, name+"="+value)
	}
	for _, kv := range base {
		if name, value, ok := strings.Cut(kv, "="); ok {
			put(name, value)
		}
	}
	names := make([]string, 0, len(own))
	for name := range own {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := Expand(own[name], lookup)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", name, err)
		}
		put(name, v)
	}
	if _, ok := set["PATH"]; !ok {
		put("PATH", "/usr/local/bin:/usr/bin:/bin")
	}
	return env, nil
}

// Tools lists the tools the server offers that its configuration lets
// the model see, with repaired schemas, in the server's order.
func (c *Conn) Tools(ctx context.Context) ([]Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.CallTimeout)
	defer cancel()
	var out []Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, c.failure("listing its tools", ctx, err)
		}
		if !c.cfg.Offers(t.Name) {
			continue
		}
		out = append(out, Tool{Ref: ToolRef{Server: c.cfg.Name, Tool: t.Name}, Description: t.Description, Schema: RepairSchema(t.InputSchema)})
	}
	return out, nil
}

// Call calls one of the server's tools with arguments (a JSON object, or
// nil for none) within the server's call timeout. A cancelled ctx, or the
// timeout, cancels the call on the server too. The error says what went
// wrong; a Result with IsError is the tool's own failure.
func (c *Conn) Call(ctx context.Context, tool string, arguments map[string]any) (Result, error) {
	if !c.cfg.Offers(tool) {
		return Result{}, fmt.Errorf("MCP server %q offers no tool %q to the model (enabledTools, disabledTools)", c.cfg.Name, tool)
	}
	if arguments == nil {
		arguments = map[string]any{} // servers refuse null arguments
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.CallTimeout)
	defer cancel()
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: arguments})
	if err != nil {
		return Result{}, c.failure("calling "+tool, ctx, err)
	}
	return resultOf(res), nil
}

// failure turns an error of a request into one that says what happened
// to it: an error the server answered, a timeout, an interrupt, or a lost
// connection (whether the tool ran is then unknown).
func (c *Conn) failure(doing string, ctx context.Context, err error) error {
	var wire *jsonrpc.Error
	switch {
	case errors.As(err, &wire):
		return fmt.Errorf("MCP server %q answered an error %s: %s (code %d)", c.cfg.Name, doing, wire.Message, wire.Code)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("MCP server %q did not answer %s within callTimeoutMs (%d); the request was cancelled", c.cfg.Name, doing, c.cfg.CallTimeout.Milliseconds())
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%s on MCP server %q was interrupted; the request was cancelled", doing, c.cfg.Name)
	case errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF):
		c.awaitStderr()
		return fmt.Errorf("the connection to MCP server %q was lost %s; whether it ran is unknown%s", c.cfg.Name, doing, c.stderrTail())
	}
	return fmt.Errorf("MCP server %q, %s: %w", c.cfg.Name, doing, err)
}

// Stderr returns the end of what a stdio server wrote to stderr.
func (c *Conn) Stderr() string { return c.stderr.String() }

// stderrTail returns the last line or so of stderr, for an error.
func (c *Conn) stderrTail() string {
	text := strings.TrimSpace(c.stderr.String())
	if text == "" {
		return ""
	}
	if len(text) > 400 {
		text = "…" + text[len(text)-400:]
	}
	return "; its stderr ends: " + text
}

// Close ends the connection: a stdio server's input is closed, it has a
// moment to exit, and then its process group is killed, so that what it
// started (npx runs npm, a shell and node) ends with it.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.session.Close()
		c.kill()
		if c.closeErr != nil && c.proc != nil {
			// A server that had to be signalled or killed on close is
			// ended all the same.
			c.closeErr = nil
		}
	})
	return c.closeErr
}

// kill kills a stdio server's process group and releases its launch.
func (c *Conn) kill() {
	if c.proc == nil || c.proc.Process == nil {
		if c.release != nil {
			c.release()
			c.release = nil
		}
		return
	}
	killGroup(c.proc.Process.Pid)
	if c.release != nil {
		c.release()
		c.release = nil
	}
}
