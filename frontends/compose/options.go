package compose

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// Options configure an assembled albedo, in a daemon or embedded in a
// program. The zero value works: it uses the default home and the default
// adapters. Every port left nil gets the default adapter, which the
// assembly owns and closes; a port set here stays the caller's to close.
type Options struct {
	// Home is the albedo home that the default store and configuration
	// live in; empty means $ALBEDO_HOME, or ~/.albedo. It is created with
	// mode 0700 when a default port needs it. Programs that embed albedo
	// usually pass a folder of their own.
	Home string

	// Store keeps sessions, transcripts and vents; nil means the store
	// StoreURL names, or without one the SQLite database albedo.sqlite in
	// Home.
	Store albedo.Store
	// StoreURL, when Store is nil and it is not empty, is the PostgreSQL
	// database (postgres://user:password@host:port/db?sslmode=...) that
	// keeps them instead of SQLite. The daemon reads it from
	// ALBEDO_STORE_URL. Its password is never logged nor shown.
	StoreURL string
	// Node names this albedo to people where several daemons share the
	// PostgreSQL store of StoreURL (the daemon reads ALBEDO_NODE); empty
	// means the machine's host name.
	Node string
	// LeaseTTL is how long the lease by which a daemon sharing the store
	// of StoreURL runs a session's turn lives unrenewed (the daemon reads
	// ALBEDO_LEASE_SECONDS): a turn whose daemon died resumes on another
	// about this long after; zero means DefaultLeaseTTL.
	LeaseTTL time.Duration
	// WorkspaceMap maps the workspaces of sessions other machines made to
	// their folders on this one (the daemon reads ALBEDO_WORKSPACE_MAP):
	// see engine.Options.
	WorkspaceMap albedo.WorkspaceMap
	// Provider streams model replies; nil means the HTTP client of the
	// OpenAI Responses and Chat Completions protocols.
	Provider albedo.Provider
	// Kernel runs the model's Python cells; nil means the local Python
	// kernel (python3 on PATH). Either way each cell carries albedo's host
	// calls (vent, vents, resolve_vent, then HostCalls), which reach this
	// albedo.
	Kernel albedo.Kernel
	// Config holds the model providers; nil means the file config.json in
	// Home, read again for every turn.
	Config albedo.ConfigSource

	// ProjectInstructions finds the project instruction files sent with
	// each turn; nil means the files of the workspace and of Home
	// (AGENTS.md), unless extensions.json in Home turns them off.
	ProjectInstructions albedo.InstructionSource
	// Catalog gives context windows of models whose configuration names
	// none; nil means models.json in Home, refreshed as extensions.json
	// says, or no catalog without a home.
	Catalog albedo.ModelCatalog

	// Tools are the program's own tools, offered to the model after
	// python with their handlers (see albedo.ToolDef); Assemble refuses
	// tools albedo.CheckTools refuses.
	Tools []albedo.ToolDef
	// HostCalls are the program's own host calls, offered to every cell
	// after albedo's (see albedo.HostCall); Assemble refuses those
	// albedo.CheckHostCalls refuses.
	HostCalls []albedo.HostCall

	// Logger receives albedo's log; nil discards it.
	Logger *slog.Logger
	// KernelIdle stops the kernel of a session that ran no cell for this long;
	// zero keeps kernels until Close.
	KernelIdle time.Duration
	// NoKernelWarmup starts a session's kernel with its first cell only;
	// by default a turn of a session without a kernel starts one while
	// the model answers.
	NoKernelWarmup bool
	// ProviderIdle fails a request to the default provider that sends
	// nothing for this long; zero means two minutes.
	ProviderIdle time.Duration
	// Clock tells the time; nil means the system clock.
	Clock albedo.Clock
	// Instructions are sent to the model with every request; empty means
	// albedo.DefaultInstructions.
	Instructions string
	// CellTimeout bounds a cell whose call names no timeout; zero means
	// albedo.DefaultCellTimeout.
	CellTimeout time.Duration

	// SandboxHelper is the command that confines the default kernel as
	// the "sandbox" policy of extensions.json says: albedo's own binary
	// and "sandbox-exec" (see adapters/landlock; a program embedding
	// albedo may run landlock.HelperMain itself). Assemble holds the
	// program as it is then, and every kernel starts from that copy.
	// Empty: the default
	// kernel runs unconfined, the session's sandbox glance says nothing is
	// enforced, and a policy with "required": true refuses to run cells.
	SandboxHelper []string
	// LandlockABI, when set, replaces the probe of the machine's Landlock
	// ABI (0: none), to play an older kernel.
	LandlockABI func() int
	// AllowAnyWorkspace accepts /, the user's home, albedo's home and the
	// folders holding it as workspaces, which are refused by default.
	AllowAnyWorkspace bool
}

// usesHome reports whether a default port lives in the home.
func (o Options) usesHome() bool { return o.Store == nil || o.Config == nil }

// HomeDir returns the absolute home the default ports use, created with
// mode 0700 if need be.
func (o Options) HomeDir() (string, error) {
	dir := o.Home
	if dir == "" {
		d, err := home.Dir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve home %s: %w", o.Home, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create home %s: %w", dir, err)
	}
	return dir, nil
}
