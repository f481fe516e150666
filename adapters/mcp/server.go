package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// server is one configured server run for one workspace: its connection
// while it runs, its listing of tools, and its crashes.
type server struct {
	m         *Manager
	workspace string
	// cfg never changes: a changed configuration is a new server.
	cfg ServerConfig

	mu   sync.Mutex
	conn *Conn
	// last is the latest connection, running or not, for its stderr.
	last *Conn
	// starting is closed when the start under way ends; nil when none.
	starting chan struct{}
	// tools is the last listing, of toolsOf when its count of changes
	// was toolsSeen.
	tools     []Tool
	toolsOf   *Conn
	toolsSeen int64
	// crashes counts crashes and failed starts since the last call that
	// succeeded; retryAt is when the server may start again; failed says
	// it never will.
	crashes int
	retryAt time.Time
	failed  bool
	lastErr string
	// lastUse is when the last call or listing ended; calls counts those
	// under way.
	lastUse time.Time
	calls   int
	// stopped says the server was shut down for good (removed,
	// reconfigured, restarted or albedo stopping).
	stopped bool
	// listing is the listing under way; nil when none.
	listing *listing
}

// listing is one listing of a server's tools (its start included when it
// was not running), which runs on its own: a turn waits for it a while
// (see Manager.TurnTools), and one that takes longer serves a later turn.
type listing struct {
	// began is when it began, by the Manager's clock.
	began time.Time
	// done is closed when it ended, with tools or err set.
	done  chan struct{}
	tools []Tool
	err   error
}

// ended is the done of a listing that needed no request.
var ended = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// startListing returns the server's listing of tools: the last one while
// it holds (the server runs and said nothing changed since), else the one
// under way, else a new one begun in the background, bounded by the
// server's startup and call timeouts and by no caller.
func (s *server) startListing() *listing {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil && s.toolsOf == s.conn && s.toolsSeen == s.conn.ToolsChanged() {
		return &listing{done: ended, tools: s.tools}
	}
	if s.listing != nil {
		return s.listing
	}
	l := &listing{began: s.m.opts.Now(), done: make(chan struct{})}
	s.listing = l
	go func() {
		tools, err := s.list(context.Background())
		s.mu.Lock()
		s.listing = nil
		l.tools, l.err = tools, err
		s.mu.Unlock()
		close(l.done)
	}()
	return l
}

// lastTools returns the tools of the server's last listing, if any.
func (s *server) lastTools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// connect returns the server's connection, starting the server when it
// is not running: within its startup timeout, once for every caller
// waiting. A server waiting out its backoff, failed or stopped is not
// started, and the error says so.
func (s *server) connect(ctx context.Context) (*Conn, error) {
	s.mu.Lock()
	for {
		switch {
		case s.stopped:
			s.mu.Unlock()
			return nil, fmt.Errorf("MCP server %q is stopping", s.cfg.Name)
		case s.conn != nil:
			conn := s.conn
			s.mu.Unlock()
			return conn, nil
		case s.starting != nil:
			wait := s.starting
			s.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, fmt.Errorf("MCP server %q was still starting when the call was interrupted", s.cfg.Name)
			}
			s.mu.Lock()
			if s.conn == nil && !s.stopped {
				err := s.notRunning()
				s.mu.Unlock()
				return nil, err
			}
			continue
		case s.failed || s.m.opts.Now().Before(s.retryAt):
			err := s.notRunning()
			s.mu.Unlock()
			return nil, err
		}
		break
	}
	done := make(chan struct{})
	s.starting = done
	s.mu.Unlock()

	conn, err := s.m.opts.Client.Connect(context.Background(), s.cfg, s.workspace)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.starting = nil
	close(done)
	switch {
	case err != nil:
		s.crashed(err.Error())
		return nil, err
	case s.stopped:
		go conn.Close()
		return nil, fmt.Errorf("MCP server %q is stopping", s.cfg.Name)
	}
	s.conn, s.last, s.lastUse = conn, conn, s.m.opts.Now()
	go s.watch(conn)
	return conn, nil
}

// notRunning says why the server is not running. The caller holds mu.
func (s *server) notRunning() error {
	why := ""
	if s.lastErr != "" {
		why = ": " + s.lastErr
	}
	if s.failed {
		return fmt.Errorf("MCP server %q is marked failed after %d crashes or failed starts in a row, and is not started again until its configuration changes or it is restarted%s", s.cfg.Name, s.crashes, why)
	}
	if wait := s.retryAt.Sub(s.m.opts.Now()); wait > 0 {
		return fmt.Errorf("MCP server %q is not running: it may start again in %s%s", s.cfg.Name, wait.Round(time.Second), why)
	}
	return fmt.Errorf("MCP server %q did not start%s", s.cfg.Name, why)
}

// crashed counts a crash or failed start, and sets the wait before the
// next start or marks the server failed. The caller holds mu.
func (s *server) crashed(why string) {
	s.crashes++
	s.lastErr = why
	s.retryAt = s.m.opts.Now().Add(backoff(s.crashes))
	if s.crashes >= MaxCrashes {
		s.failed = true
	}
	s.m.opts.Logger.Warn("mcp server failed", "mcp_server", s.cfg.Name, "workspace", s.workspace, "crashes", s.crashes, "failed", s.failed, "err", why)
}

// watch waits for a connection to end, and counts a crash when the
// server went away without being asked to.
func (s *server) watch(conn *Conn) {
	<-conn.Done()
	conn.awaitStderr()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != conn {
		return // stopped on purpose
	}
	s.conn = nil
	why := "the server exited"
	if tail := strings.TrimSpace(conn.stderrTail()); tail != "" {
		why += tail
	}
	s.crashed(why)
	go conn.Close() // its process group, and the launch's release
}

// list returns the server's tools, listing them again when the server
// said they changed or it restarted.
func (s *server) list(ctx context.Context) ([]Tool, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.toolsOf == conn && s.toolsSeen == conn.ToolsChanged() {
		tools := s.tools
		s.mu.Unlock()
		return tools, nil
	}
	s.calls++
	s.mu.Unlock()
	seen := conn.ToolsChanged()
	tools, err := conn.Tools(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls--
	s.lastUse = s.m.opts.Now()
	if err != nil {
		s.lastErr = err.Error()
		return nil, err
	}
	s.tools, s.toolsOf, s.toolsSeen = tools, conn, seen
	return tools, nil
}

// call calls one of the server's tools.
func (s *server) call(ctx context.Context, tool string, args map[string]any) (Result, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("%s/%s was not called: %w", s.cfg.Name, tool, err)
	}
	s.begin()
	res, err := conn.Call(ctx, tool, args)
	s.end(err)
	return res, err
}

// begin counts a request under way, which keeps the server from being
// stopped as idle.
func (s *server) begin() {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
}

// end counts the end of a request begin counted: its error is the
// server's last, and one that succeeded forgets the crashes.
func (s *server) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls--
	s.lastUse = s.m.opts.Now()
	if err != nil {
		s.lastErr = err.Error()
		return
	}
	s.crashes = 0
}

// stopIfIdle stops the server when it runs, has nothing under way, and
// was last used before since; it reports whether it stopped it.
func (s *server) stopIfIdle(since time.Time) bool {
	s.mu.Lock()
	conn := s.conn
	if conn == nil || s.calls > 0 || !s.lastUse.Before(since) {
		s.mu.Unlock()
		return false
	}
	s.conn = nil
	s.mu.Unlock()
	s.m.opts.Logger.Info("mcp server stopped while idle", "mcp_server", s.cfg.Name, "workspace", s.workspace)
	_ = conn.Close()
	return true
}

// shutdown stops the server for good.
func (s *server) shutdown(why string) {
	s.mu.Lock()
	s.stopped = true
	conn := s.conn
	s.conn = nil
	s.mu.Unlock()
	if conn != nil {
		s.m.opts.Logger.Info("mcp server stopped", "mcp_server", s.cfg.Name, "workspace", s.workspace, "why", why)
		_ = conn.Close()
	}
}
