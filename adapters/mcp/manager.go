package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// DefaultIdle is how long a server may go unused before it is stopped.
const DefaultIdle = 10 * time.Minute

// MaxCrashes is how many crashes (or failed starts) in a row mark a
// server failed: it is not started again until its configuration changes
// or it is restarted by hand.
const MaxCrashes = 5

// maxBackoff caps the wait before a crashed server may start again.
const maxBackoff = 30 * time.Second

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	// Client starts and reaches the servers.
	Client *Client
	// Config returns the configuration in force for a workspace (the
	// user's servers and the project's approved ones); it is called at
	// every use, so a changed file applies from the next listing or call.
	Config func(workspace string) Config
	// Idle stops a server unused this long; DefaultIdle when zero, never
	// when negative.
	Idle time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logger receives crashes and stops; none when nil.
	Logger *slog.Logger
	// After is the timer TurnTools waits for listings with; time.After
	// when nil.
	After func(time.Duration) <-chan time.Time
}

// Manager runs the configured servers for each workspace that uses them:
// one connection per server and workspace, started at its first use,
// stopped when idle, started again after a crash (after a growing wait)
// and marked failed after MaxCrashes crashes in a row. It implements
// albedo.ToolServers and is safe for concurrent use; a server that hangs
// holds up its own callers only.
type Manager struct {
	opts ManagerOptions

	mu      sync.Mutex
	servers map[serverKey]*server
	closed  bool
	stop    chan struct{}
	reaped  chan struct{}
}

var _ albedo.ToolServers = (*Manager)(nil)

// serverKey names one server run for one workspace.
type serverKey struct{ workspace, name string }

// NewManager returns a Manager configured by opts; Close stops it.
func NewManager(opts ManagerOptions) *Manager {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Idle == 0 {
		opts.Idle = DefaultIdle
	}
	if opts.Config == nil {
		opts.Config = func(string) Config { return Config{} }
	}
	m := &Manager{opts: opts, servers: make(map[serverKey]*server), stop: make(chan struct{}), reaped: make(chan struct{})}
	go m.reapLoop()
	return m
}

// Tools lists the tools of a workspace's servers, starting those not
// running, and waits for every listing (each bounded by its server's
// timeouts) or for ctx; see albedo.ToolServers.
func (m *Manager) Tools(ctx context.Context, workspace string) albedo.ServerTools {
	return m.tools(ctx, workspace, false)
}

// TurnTools lists the tools of a workspace's servers for a turn, waiting
// for a listing at most its server's ListWait from when that listing
// began; see albedo.ToolServers.
func (m *Manager) TurnTools(ctx context.Context, workspace string) albedo.ServerTools {
	return m.tools(ctx, workspace, true)
}

// tools lists the tools of a workspace's servers, all at once, each
// listing going on in the background. Bounded, a listing is waited for
// until its server's ListWait after it began: one that took longer is
// named pending, and the tools it finds serve the next listing. A
// cancelled ctx leaves every listing not ended pending.
func (m *Manager) tools(ctx context.Context, workspace string, bounded bool) albedo.ServerTools {
	cfg := m.opts.Config(workspace)
	servers := m.serversFor(workspace, cfg)
	listings := make([]*listing, len(servers))
	for i, s := range servers {
		listings[i] = s.startListing()
	}
	results := make([]listed, len(servers))
	for i, l := range listings {
		results[i] = m.await(ctx, servers[i], l, bounded)
		results[i].server = servers[i].cfg.Name
	}
	return declared(results, cfg.Problems)
}

// await waits for a listing of s (see tools) and returns what it gave,
// or that it is pending.
func (m *Manager) await(ctx context.Context, s *server, l *listing, bounded bool) listed {
	select {
	case <-l.done:
		return listed{tools: l.tools, err: l.err}
	default:
	}
	var timeout <-chan time.Time
	if bounded {
		left := l.began.Add(cmp.Or(s.cfg.ListWait, DefaultListWait)).Sub(m.opts.Now())
		if left <= 0 {
			return s.pending()
		}
		timeout = m.opts.After(left)
	}
	select {
	case <-l.done:
		return listed{tools: l.tools, err: l.err}
	case <-timeout:
		return s.pending()
	case <-ctx.Done():
		return s.pending()
	}
}

// listed is what a listing of one server gave a caller: its tools or
// its error, or that it had not ended (pending), with the tools of the
// server's last listing, which keep the other tools' names the same.
type listed struct {
	server  string
	tools   []Tool
	err     error
	pending bool
	last    []Tool
}

// pending is a listing of s not ended in time.
func (s *server) pending() listed {
	return listed{
		pending: true, last: s.lastTools(),
		err: fmt.Errorf("MCP server %q had not listed its tools within listWaitMs (%d): they are left out of this turn and offered once listed", s.cfg.Name, cmp.Or(s.cfg.ListWait, DefaultListWait).Milliseconds()),
	}
}

// Listed returns the tools of a workspace's servers as their last
// listings gave them, in the servers' name order, starting none: what
// the model was last offered, for the API to show.
func (m *Manager) Listed(workspace string) albedo.ServerTools {
	m.mu.Lock()
	var servers []*server
	for key, s := range m.servers {
		if key.workspace == workspace {
			servers = append(servers, s)
		}
	}
	m.mu.Unlock()
	sort.Slice(servers, func(i, j int) bool { return servers[i].cfg.Name < servers[j].cfg.Name })
	results := make([]listed, len(servers))
	for i, s := range servers {
		results[i] = listed{server: s.cfg.Name, tools: s.lastTools()}
	}
	return declared(results, nil)
}

// declared names the tools of each server's listing (or its error) for
// the model, as albedo.ServerTools. A pending server's last tools take
// part in the naming only, so that a name does not change because a
// server it collides with is late.
func declared(results []listed, problems []string) albedo.ServerTools {
	var out albedo.ServerTools
	out.Problems = append(out.Problems, problems...)
	var refs []ToolRef
	for _, r := range results {
		naming := r.tools
		if r.pending {
			naming = r.last
		}
		for _, t := range naming {
			refs = append(refs, t.Ref)
		}
		if r.err != nil {
			out.Problems = append(out.Problems, r.err.Error())
		}
	}
	names := ToolNames(refs)
	for _, r := range results {
		if r.pending {
			out.Pending = append(out.Pending, r.server)
		}
		if r.err != nil {
			continue
		}
		for _, t := range r.tools {
			schema, _ := json.Marshal(t.Schema)
			out.Tools = append(out.Tools, albedo.ServerTool{
				Ref: albedo.ServerToolRef{Server: t.Ref.Server, Tool: t.Ref.Tool}, Name: names[t.Ref],
				Description: t.Description, Parameters: schema,
			})
		}
	}
	return out
}

// Call calls one tool of a workspace's server; see albedo.ToolServers.
func (m *Manager) Call(ctx context.Context, workspace string, ref albedo.ServerToolRef, arguments json.RawMessage) (albedo.ServerResult, error) {
	args, err := decodeArguments(arguments)
	if err != nil {
		return albedo.ServerResult{}, fmt.Errorf("%s was not called: %w", ref, err)
	}
	s, err := m.serverOf(workspace, ref.Server)
	if err != nil {
		return albedo.ServerResult{}, fmt.Errorf("%s was not called: %w", ref, err)
	}
	res, err := s.call(ctx, ref.Tool, args)
	if err != nil {
		return albedo.ServerResult{}, err
	}
	out := albedo.ServerResult{Text: res.Text, IsError: res.IsError, Raw: res.Raw}
	for _, img := range res.Images {
		out.Images = append(out.Images, albedo.ServerImage{MimeType: img.MIMEType, Data: img.Data})
	}
	return out, nil
}

// serverOf returns the named server of a workspace, creating it when it
// is configured and not known yet.
func (m *Manager) serverOf(workspace, name string) (*server, error) {
	cfg := m.opts.Config(workspace)
	if _, ok := cfg.Servers[name]; !ok {
		return nil, fmt.Errorf("no MCP server %q is configured", name)
	}
	for _, s := range m.serversFor(workspace, cfg) {
		if s.cfg.Name == name {
			return s, nil
		}
	}
	return nil, errors.New("albedo is shutting down")
}

// decodeArguments reads a call's arguments: a JSON object, or nothing.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("its arguments are not a JSON object: %v", err)
	}
	return args, nil
}

// serversFor returns the servers of a workspace under cfg, in name
// order, creating those not known yet. A server of the workspace whose
// configuration changed is stopped and replaced, one no longer configured
// is stopped.
func (m *Manager) serversFor(workspace string, cfg Config) []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	for key, s := range m.servers {
		if key.workspace != workspace {
			continue
		}
		if now, ok := cfg.Servers[key.name]; !ok || !reflect.DeepEqual(now, s.cfg) {
			delete(m.servers, key)
			go s.shutdown("its configuration changed")
		}
	}
	names := make([]string, 0, len(cfg.Servers))
	for name := range cfg.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]*server, 0, len(names))
	for _, name := range names {
		key := serverKey{workspace: workspace, name: name}
		s, ok := m.servers[key]
		if !ok {
			s = &server{m: m, workspace: workspace, cfg: cfg.Servers[name]}
			m.servers[key] = s
		}
		out = append(out, s)
	}
	return out
}

// Restart stops every run of the named server and forgets its crashes,
// so that its next use starts it afresh; it reports whether any was
// known.
func (m *Manager) Restart(name string) bool {
	m.mu.Lock()
	var found []*server
	for key, s := range m.servers {
		if key.name == name {
			delete(m.servers, key)
			found = append(found, s)
		}
	}
	m.mu.Unlock()
	for _, s := range found {
		s.shutdown("restarted")
	}
	return len(found) > 0
}

// Close stops every server and the idle reaper; no server starts after.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.servers = map[serverKey]*server{}
	m.mu.Unlock()
	close(m.stop)
	<-m.reaped
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.shutdown("albedo is stopping")
		}()
	}
	wg.Wait()
	return nil
}

// reapLoop stops idle servers until Close.
func (m *Manager) reapLoop() {
	defer close(m.reaped)
	if m.opts.Idle < 0 {
		<-m.stop
		return
	}
	tick := time.NewTicker(max(m.opts.Idle/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
			m.ReapIdle()
		}
	}
}

// ReapIdle stops the servers whose configuration changed or went since
// their workspace's last use, and those that ran no call and no listing
// for the idle time, and returns how many idle ones it stopped. Their
// next use starts them again.
func (m *Manager) ReapIdle() int {
	if m.opts.Idle < 0 {
		return 0
	}
	m.mu.Lock()
	workspaces := map[string]bool{}
	for key := range m.servers {
		workspaces[key.workspace] = true
	}
	m.mu.Unlock()
	for ws := range workspaces {
		m.serversFor(ws, m.opts.Config(ws))
	}
	m.mu.Lock()
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.mu.Unlock()
	n := 0
	for _, s := range all {
		if s.stopIfIdle(m.opts.Now().Add(-m.opts.Idle)) {
			n++
		}
	}
	return n
}

// backoff is the wait before a server that crashed n times in a row may
// start again: none after the first crash, then 1s, 2s, 4s ... up to
// maxBackoff.
func backoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := time.Second << (n - 2)
	if d > maxBackoff || d <= 0 {
		return maxBackoff
	}
	return d
}
