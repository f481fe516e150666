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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/albedo-agent/albedo/adapters/landlock"
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
	// LogDir, when set, keeps each stdio server's stderr in a file there
	// too (LogPath).
	LogDir string
}

// Launch is how a stdio server's process starts.
type Launch struct {
	// Server is the server's name, Workspace the folder it serves.
	Server, Workspace string
	// Argv is the command line, the program first; Env the environment;
	// Dir the working folder.
	Argv, Env []string
	Dir       string
	// Sandbox is the server's sandbox mode (ServerConfig.Sandbox).
	Sandbox string
	// PIDNamespace, set by Confine, says Argv starts with the sandbox's
	// helper, which, started as the first process of a PID namespace of
	// its own, ends everything the server started when it ends.
	PIDNamespace bool
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
	// proc is the stdio server's process, nil for an HTTP server; exited
	// is closed once it has exited.
	proc   *exec.Cmd
	exited chan struct{}
	// release is Launch.Release.
	release func()
	// stderrW is the writing end of a stdio server's stderr pipe, which
	// the daemon closes once the server has started (or failed to).
	stderrW *os.File
	// stderrDone is closed once a stdio server's stderr has ended.
	stderrDone chan struct{}
	// done is closed once the connection has ended, however it ended.
	done chan struct{}
	// toolsChanged counts the server's notices that its tools changed.
	toolsChanged atomic.Int64

	closeOnce sync.Once
	closeErr  error
}

// Connect starts (stdio) or reaches (HTTP) the server cfg describes for a
// workspace, and completes the protocol's handshake, all within the
// server's startup timeout.
func (c *Client) Connect(ctx context.Context, cfg ServerConfig, workspace string) (*Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.StartupTimeout)
	defer cancel()
	conn := &Conn{cfg: cfg, stderr: newRing(StderrLimit), log: c.opts.Logger.With("mcp_server", cfg.Name), done: make(chan struct{})}
	var transport sdk.Transport
	var err error
	if cfg.Stdio() {
		transport, err = c.stdio(ctx, conn, workspace)
	} else {
		transport, err = c.http(cfg)
	}
	if err != nil {
		conn.closeStderr()
		conn.kill()
		return nil, fmt.Errorf("starting MCP server %q: %w", cfg.Name, err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "albedo", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { conn.toolsChanged.Add(1) },
	})
	session, err := client.Connect(ctx, transport, nil)
	conn.closeStderr() // the server holds its own copy now
	if err != nil {
		conn.kill()
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("it did not answer within startupTimeoutMs (%d)", cfg.StartupTimeout.Milliseconds())
		} else {
			conn.awaitStderr()
		}
		return nil, fmt.Errorf("starting MCP server %q: %w%s", cfg.Name, err, conn.stderrTail())
	}
	conn.session = session
	go func() {
		_ = session.Wait()
		close(conn.done)
	}()
	conn.log.Info("mcp server started", "stdio", cfg.Stdio(), "workspace", workspace)
	return conn, nil
}

// Done is closed once the connection has ended: closed, or lost when the
// server exited or its transport failed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// ToolsChanged counts the notices the server sent that its tools
// changed; a listing is stale once the count moved.
func (c *Conn) ToolsChanged() int64 { return c.toolsChanged.Load() }

// stdio starts a stdio server's process (its environment, folder,
// confinement and process group, in a PID namespace of its own when the
// launch asks for it) and returns the transport over its standard input
// and output.
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
	l := Launch{Server: cfg.Name, Workspace: workspace, Argv: append([]string{cfg.Command}, cfg.Args...), Env: env, Dir: dir, Sandbox: cfg.Sandbox}
	if c.opts.Confine != nil {
		if l, err = c.opts.Confine(ctx, l); err != nil {
			return nil, err
		}
	}
	conn.release = l.Release
	if err := conn.pipeStderr(c.opts.LogDir); err != nil {
		return nil, err
	}
	return conn.startProcess(l)
}

// startProcess starts the launch's process, trying each way of starting
// it the machine may allow (a PID namespace first, when asked for), with
// pipes for its standard input and output.
func (c *Conn) startProcess(l Launch) (sdk.Transport, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making the stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW)
		return nil, fmt.Errorf("making the stdout pipe: %w", err)
	}
	attrs := []*syscall.SysProcAttr{groupAttr()}
	if l.PIDNamespace {
		attrs = append(landlock.NamespaceAttrs(attrs[0]), attrs...)
	}
	var cmd *exec.Cmd
	for _, attr := range attrs {
		cmd = exec.Command(l.Argv[0], l.Argv[1:]...)
		cmd.Env, cmd.Dir = l.Env, l.Dir
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderrW
		cmd.SysProcAttr = attr
		if err = cmd.Start(); err == nil {
			break
		}
	}
	closeFiles(inR, outW) // the server holds its own copies now
	if err != nil {
		closeFiles(inW, outR)
		return nil, fmt.Errorf("starting %s: %w", l.Argv[0], err)
	}
	c.proc = cmd
	c.exited = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	return &sdk.IOTransport{Reader: outR, Writer: inW, MaxLineLength: maxLine}, nil
}

// maxLine bounds one message a server sends: a result of several MiB of
// text or images still fits.
const maxLine = 64 << 20

// closeFiles closes files, ignoring errors.
func closeFiles(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
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
		err := c.session.Close()
		if c.proc != nil {
			select {
			case <-c.exited:
			case <-time.After(closeGrace):
			}
			// A server that had to be killed on close is ended all the
			// same.
			err = nil
		}
		c.kill()
		c.closeErr = err
	})
	return c.closeErr
}

// kill kills a stdio server's process group and releases its launch.
func (c *Conn) kill() {
	if c.proc != nil && c.proc.Process != nil {
		killGroup(c.proc.Process.Pid)
	}
	if c.release != nil {
		c.release()
		c.release = nil
	}
}
