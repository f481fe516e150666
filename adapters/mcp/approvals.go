package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// ApprovalsFile is the file in ALBEDO_HOME holding the user's approvals
// of project servers. The model's sandbox hides ALBEDO_HOME, so the model
// cannot approve a server it wrote.
const ApprovalsFile = "mcp-approvals.json"

// Approvals are the project servers the user approved, kept in a file of
// ALBEDO_HOME by the hash of each entry (ProjectServer.Hash). Its methods
// are safe for concurrent use within one process.
type Approvals struct {
	path string
	mu   sync.Mutex
}

// approvalsDoc is the approvals file.
type approvalsDoc struct {
	// Approved are the approvals by entry hash.
	Approved map[string]approval `json:"approved"`
}

// approval records what was approved, for a person reading the file.
type approval struct {
	Server string    `json:"server"`
	Root   string    `json:"root"`
	File   string    `json:"file"`
	Runs   string    `json:"runs"`
	At     time.Time `json:"approvedAt"`
}

// NewApprovals returns the approvals kept in the albedo home dir.
func NewApprovals(dir string) *Approvals {
	return &Approvals{path: filepath.Join(dir, ApprovalsFile)}
}

// Approved reports whether the user approved the entry of this hash.
func (a *Approvals) Approved(hash string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	doc, err := a.read()
	if err != nil {
		return false, err
	}
	_, ok := doc.Approved[hash]
	return ok, nil
}

// Approve records the user's approval of a project server's entry as it
// is now.
func (a *Approvals) Approve(s ProjectServer, at time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	doc, err := a.read()
	if err != nil {
		return err
	}
	doc.Approved[s.Hash] = approval{Server: s.Config.Name, Root: s.Root, File: s.File, Runs: Runs(s.Config), At: at.UTC()}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("approving MCP server %q: %w", s.Config.Name, err)
	}
	if err := atomicfile.Write(a.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("approving MCP server %q: %w", s.Config.Name, err)
	}
	return nil
}

// read reads the approvals file; a missing one approves nothing.
func (a *Approvals) read() (approvalsDoc, error) {
	doc := approvalsDoc{}
	data, err := os.ReadFile(a.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return doc, fmt.Errorf("reading MCP approvals: %w", err)
	}
	if err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			return doc, fmt.Errorf("reading MCP approvals %s: not valid: %w", a.path, err)
		}
	}
	if doc.Approved == nil {
		doc.Approved = map[string]approval{}
	}
	return doc, nil
}

// Runs says in one line what a server runs or reaches: its command line,
// or its URL.
func Runs(c ServerConfig) string {
	if !c.Stdio() {
		return c.URL
	}
	return strings.Join(append([]string{c.Command}, c.Args...), " ")
}

// WorkspaceServers are the servers a workspace has.
type WorkspaceServers struct {
	// Servers may start: the user's, and the project's the user approved.
	Servers map[string]ServerConfig
	// Waiting are the project's servers awaiting the user's approval.
	Waiting []ProjectServer
	// Project are the project's servers, approved or not, by name.
	Project map[string]ProjectServer
	// Problems are the configuration's and the project's.
	Problems []string
}

// Workspace combines the user's servers with a project's: a project
// server starts only once approved, and a name the user's configuration
// gives is the user's.
func (a *Approvals) Workspace(user Config, p Project) WorkspaceServers {
	w := WorkspaceServers{Servers: make(map[string]ServerConfig, len(user.Servers)+len(p.Servers)), Project: map[string]ProjectServer{}}
	w.Problems = append(append(w.Problems, user.Problems...), p.Problems...)
	for name, s := range user.Servers {
		w.Servers[name] = s
	}
	for _, s := range p.Servers {
		name := s.Config.Name
		if _, ok := user.Servers[name]; ok {
			w.Problems = append(w.Problems, fmt.Sprintf("%s: server %q is left out: extensions.json names a server %q too", s.File, name, name))
			continue
		}
		w.Project[name] = s
		ok, err := a.Approved(s.Hash)
		if err != nil {
			w.Problems = append(w.Problems, err.Error())
		}
		if ok {
			w.Servers[name] = s.Config
		} else {
			w.Waiting = append(w.Waiting, s)
		}
	}
	return w
}
