// Package compose is albedo's composition root: it opens the store, the
// model provider, the Python kernel and the configuration a home names (or
// takes the ports a program passes), and wires them into the domain service
// and the application layer. The daemon and embedded albedo both assemble
// themselves here, so that neither depends on the other.
package compose

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/albedo-agent/albedo/adapters/configfile"
	"github.com/albedo-agent/albedo/adapters/gitshadow"
	"github.com/albedo-agent/albedo/adapters/landlock"
	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/adapters/mcp"
	"github.com/albedo-agent/albedo/adapters/openai"
	"github.com/albedo-agent/albedo/adapters/postgres"
	"github.com/albedo-agent/albedo/adapters/pykernel"
	"github.com/albedo-agent/albedo/adapters/spool"
	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/albedo-agent/albedo/frontends/home"
)

// Assembly is albedo wired to its ports: the domain service and the
// application layer over it, and the adapters it opened.
type Assembly struct {
	svc *engine.Service
	app *app.App
	// store is closed by Shutdown when the assembly opened it.
	store    albedo.Store
	ownStore bool
	// storeKind names the kind of store the assembly opened.
	storeKind string
	// node names this albedo among those sharing its store; "" when it
	// shares none.
	node string
	// mcpStatus answers the MCP routes; nil without a home.
	mcpStatus *mcpServers
	// mcp runs the MCP servers of each workspace; nil without a home.
	// Shutdown stops them.
	mcp *mcp.Manager
	// shadows keep the workspaces' snapshots; nil for none.
	shadows *gitshadow.Shadows
	// sandbox confines the default kernel; nil for a kernel passed in.
	// Shutdown closes it once the kernel has ended.
	sandbox *landlock.Sandbox
	// spool keeps running cells' output in a PostgreSQL store; nil for
	// another store. Shutdown writes what is left once the turns stop.
	spool *postgres.Spool
	log   *slog.Logger
	// stopRefresh ends the model catalog's refresher; refreshed is closed
	// once it has.
	stopRefresh context.CancelFunc
	refreshed   chan struct{}
	// stopPrune ends the pruning of the workspaces' shadows; pruned is
	// closed when it has ended (see startPruning).
	stopPrune context.CancelFunc
	pruned    chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Assemble wires albedo's service to the ports in opts, filling in the
// default adapters. It takes no lock on the home and resumes no turn: the
// caller does both (see Recover).
func Assemble(ctx context.Context, opts Options) (*Assembly, error) {
	if err := engine.CheckTools(opts.Tools); err != nil {
		return nil, fmt.Errorf("register the tools: %w", err)
	}
	if err := engine.CheckHostCalls(opts.HostCalls); err != nil {
		return nil, fmt.Errorf("register the host calls: %w", err)
	}
	a := &Assembly{store: opts.Store, log: opts.Logger}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	var dir string
	if opts.usesHome() {
		var err error
		if dir, err = opts.HomeDir(); err != nil {
			return nil, err
		}
	}
	var (
		leases  albedo.Leases
		changes albedo.Changes
		live    albedo.LiveEvents
	)
	if a.store == nil {
		store, kind, err := openStore(ctx, opts, dir, a.log)
		if err != nil {
			return nil, err
		}
		a.store, a.ownStore, a.storeKind = store, true, kind
		if pg, ok := store.(*postgres.Store); ok {
			shared, err := sharedLeases(ctx, pg, opts, dir, a.log)
			if err != nil {
				store.Close()
				return nil, err
			}
			leases, changes, a.node = shared, pg, shared.Node()
			live = pg.Live(postgres.LiveOptions{Logger: opts.Logger})
		}
	}
	kernel := opts.Kernel
	var sandbox albedo.Sandbox
	if kernel == nil {
		sb := newSandbox(opts, dir)
		sandbox, a.sandbox = sb, sb
		kernels := pykernel.New(pykernel.Options{
			OnJobEnd: a.jobEnded,
			Logger:   opts.Logger,
			Confine:  confine(sb, opts.Logger),
		})
		// The instructions name the Python version from a session's first
		// request on, so that it does not change at the second.
		kernels.ProbeVersion(ctx, homeFile(dir, home.PythonFile))
		kernel = kernels
	} else {
		kernel = borrowedKernel{kernel}
	}
	provider := opts.Provider
	if provider == nil {
		provider = openai.New(openai.Options{Logger: opts.Logger, IdleTimeout: opts.ProviderIdle})
	}
	config := opts.Config
	if config == nil {
		config = configfile.New(filepath.Join(dir, home.ConfigFile))
	}
	var cellSpool albedo.OutputSpool
	if pg, ok := a.store.(*postgres.Store); ok && a.ownStore {
		// Another daemon taking a turn over reads what its cell printed.
		a.spool = pg.Spool(postgres.SpoolOptions{Logger: opts.Logger})
		cellSpool = a.spool
	} else if a.ownStore {
		cellSpool = spool.New(filepath.Join(dir, home.SpoolDir), 0)
	}
	instructions, catalog, refresher := extensions(opts, dir)
	a.startRefresh(refresher)
	var toolServers albedo.ToolServers
	if dir != "" {
		if a.sandbox == nil {
			a.sandbox = newSandbox(opts, dir)
		}
		a.mcp = newMCP(dir, a.sandbox, opts.Logger)
		a.mcpStatus = newMCPServers(opts, dir, mcpRuns{a.mcp})
		toolServers = a.mcp
	}
	a.shadows = checkpoints(opts, dir)
	a.svc = engine.New(engine.Options{
		Workspaces:          workspaces(opts, dir),
		Store:               a.store,
		Provider:            provider,
		Kernel:              kernel,
		Spool:               cellSpool,
		Config:              config,
		ProjectInstructions: instructions,
		Catalog:             catalog,
		Compaction:          compaction(dir),
		Clock:               opts.Clock,
		Logger:              opts.Logger,
		Instructions:        opts.Instructions,
		CellTimeout:         opts.CellTimeout,
		KernelIdle:          opts.KernelIdle,
		NoKernelWarmup:      opts.NoKernelWarmup,
		Sandbox:             sandbox,
		Tools:               opts.Tools,
		HostCalls:           opts.HostCalls,
		ToolServers:         toolServers,
		Leases:              leases,
		Checkpoints:         asPort(a.shadows),
		Changes:             changes,
		Live:                live,
		WorkspaceMap:        opts.WorkspaceMap,
	})
	a.app = app.New(a.svc, a.MCPServers())
	return a, nil
}

// Store kinds, as StoreKind and GET /health name them.
const (
	StoreSQLite     = "sqlite"
	StorePostgreSQL = "postgresql"
)

// openStore opens the store opts name: the PostgreSQL database of
// StoreURL, or the SQLite database of the home dir. It returns the store's
// kind beside it.
func openStore(ctx context.Context, opts Options, dir string, log *slog.Logger) (albedo.Store, string, error) {
	if opts.StoreURL != "" {
		store, err := postgres.Open(ctx, opts.StoreURL)
		if err != nil {
			return nil, "", err
		}
		log.Info("store opened", "kind", StorePostgreSQL, "database", postgres.Redact(opts.StoreURL))
		return store, StorePostgreSQL, nil
	}
	store, err := sqlite.Open(ctx, filepath.Join(dir, home.DatabaseFile))
	if err != nil {
		return nil, "", fmt.Errorf("open the store of home %s: %w", dir, err)
	}
	return store, StoreSQLite, nil
}

// Node names this albedo among the daemons sharing its PostgreSQL store;
// "" for a store it does not share.
func (a *Assembly) Node() string { return a.node }

// StoreKind names the kind of store the assembly opened (StoreSQLite or
// StorePostgreSQL); "" for a store the caller passed in Options.
func (a *Assembly) StoreKind() string { return a.storeKind }

// workspaces judges the folders sessions may work in: none too broad
// (see localfs.Workspaces) unless opts allow any. dir is the home, ""
// for none, when the default home then counts.
func workspaces(opts Options, dir string) localfs.Workspaces {
	if dir == "" {
		dir, _ = home.Dir()
	}
	return localfs.Workspaces{Home: dir, AllowAny: opts.AllowAnyWorkspace}
}

// jobEnded wakes the session whose kernel's background job ended unread.
func (a *Assembly) jobEnded(session string, end albedo.JobEnd) {
	if err := a.svc.JobFinished(context.Background(), session, end); err != nil {
		a.log.Warn("wake a session for the end of its job", "session", session, "job", end.ID, "err", err)
	}
}

// borrowedKernel is a kernel the caller passed in: the assembly stops the
// cells it runs but leaves closing it to the caller.
type borrowedKernel struct{ albedo.Kernel }

// Close leaves the kernel to its owner.
func (borrowedKernel) Close(context.Context) error { return nil }

// Service returns the domain service.
func (a *Assembly) Service() *engine.Service { return a.svc }

// MCPServers returns what the API shows of the MCP servers and does to
// them; nil for an assembly without a home.
func (a *Assembly) MCPServers() app.MCPServers {
	if a.mcpStatus == nil {
		return nil
	}
	return a.mcpStatus
}

// App returns the application layer over the service.
func (a *Assembly) App() *app.App { return a.app }

// Recover resumes every turn that was running when the store was last
// used, and returns how many it resumed.
func (a *Assembly) Recover(ctx context.Context) (int, error) {
	if a.shadows != nil {
		// A rewind a crash cut short lands whole before anything runs.
		if err := a.shadows.Recover(ctx); err != nil {
			a.log.Error("finish interrupted rewinds", "err", err)
		}
		a.startPruning()
	}
	n, err := a.svc.Recover(ctx)
	if err != nil {
		return n, fmt.Errorf("resume interrupted turns: %w", err)
	}
	return n, nil
}

// Shutdown stops albedo: running turns stop and stay durable, so the next
// assembly over the same store resumes them; the default kernel ends and
// its sandbox lets the held helper go; the store closes if Assemble
// opened it. Ports passed in Options are left
// open. ctx bounds the wait for turns. Later calls return the first call's
// result.
func (a *Assembly) Shutdown(ctx context.Context) error {
	a.closeOnce.Do(func() {
		a.stopRefresh()
		<-a.refreshed
		a.stopPruning()
		var errs []error
		if err := a.svc.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop albedo: %w", err))
		}
		if a.mcp != nil {
			_ = a.mcp.Close()
		}
		if a.sandbox != nil {
			if err := a.sandbox.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		if a.spool != nil {
			if err := a.spool.Close(ctx); err != nil {
				errs = append(errs, err)
			}
		}
		if a.ownStore {
			if err := a.store.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close the store: %w", err))
			}
		}
		a.closeErr = errors.Join(errs...)
	})
	return a.closeErr
}

// homeFile is the path of a file of the home dir, or "" without a home.
func homeFile(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}
