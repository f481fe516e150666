package mcp

import (
	"sort"
	"time"
)

// Server states, as Status reports them.
const (
	// StateIdle: not running; its next use starts it.
	StateIdle = "idle"
	// StateStarting: a start is under way.
	StateStarting = "starting"
	// StateRunning: connected.
	StateRunning = "running"
	// StateWaiting: it crashed or failed to start, and may start again
	// after a wait.
	StateWaiting = "waiting"
	// StateFailed: it crashed or failed to start MaxCrashes times in a
	// row, and is not started again until its configuration changes or
	// it is restarted.
	StateFailed = "failed"
)

// ServerStatus is what a Manager knows of one server run for one
// workspace.
type ServerStatus struct {
	Name, Workspace string
	// Stdio says the server is a command albedo starts.
	Stdio bool
	// State is one of the State constants.
	State string
	// Tools are the names of the tools of its last listing, in the
	// server's own terms.
	Tools []string
	// Crashes counts crashes and failed starts in a row.
	Crashes int
	// RetryAt is when a waiting server may start again.
	RetryAt time.Time
	// LastError is the last failure of a start, listing or call.
	LastError string
	// Stderr is the end of what its latest process wrote to stderr.
	Stderr string
}

// Status reports every server the Manager runs or ran, by name, then
// workspace.
func (m *Manager) Status() []ServerStatus {
	m.mu.Lock()
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.mu.Unlock()
	out := make([]ServerStatus, 0, len(all))
	now := m.opts.Now()
	for _, s := range all {
		out = append(out, s.status(now))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Workspace < out[j].Workspace
	})
	return out
}

// status reports the server as it is at now.
func (s *server) status(now time.Time) ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{Name: s.cfg.Name, Workspace: s.workspace, Stdio: s.cfg.Stdio(), Crashes: s.crashes, LastError: s.lastErr, State: StateIdle}
	switch {
	case s.starting != nil:
		st.State = StateStarting
	case s.conn != nil:
		st.State = StateRunning
	case s.failed:
		st.State = StateFailed
	case now.Before(s.retryAt):
		st.State, st.RetryAt = StateWaiting, s.retryAt
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, t.Ref.Tool)
	}
	if s.last != nil {
		st.Stderr = s.last.Stderr()
	}
	return st
}
