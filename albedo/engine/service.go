package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// Options wires a Service to its ports.
type Options struct {
	Store    albedo.Store
	Provider albedo.Provider
	Kernel   albedo.Kernel
	Config   albedo.ConfigSource
	// Spool keeps the output of running cells for a restart after a crash;
	// nil keeps none.
	Spool albedo.OutputSpool
	// Workspaces answers whether workspace folders exist; nil sees none
	// (adapters/localfs.Workspaces sees the local disk).
	Workspaces albedo.Workspaces
	// Clock defaults to the system clock.
	Clock albedo.Clock
	// Logger defaults to a logger that discards everything.
	Logger *slog.Logger
	// Instructions are sent to the model with every request; empty means
	// DefaultInstructions.
	Instructions string
	// ProjectInstructions, when not nil, finds the project instruction
	// files sent with each turn; nil sends none.
	ProjectInstructions albedo.InstructionSource
	// Catalog, when not nil, gives the context windows of models whose
	// provider configuration names none.
	Catalog albedo.ModelCatalog
	// Compaction says when a session compacts on its own and how much it
	// keeps verbatim, read again for every model request; nil means the
	// defaults. A CompactionSettings value is settings that never change.
	Compaction albedo.CompactionSource
	// CellTimeout applies to cells whose call names no timeout; zero
	// means DefaultCellTimeout.
	CellTimeout time.Duration
	// KernelIdle stops the kernel of a session that ran no cell for this
	// long, to free its memory; zero keeps kernels until Close. The model
	// is told with its next message that its globals are gone.
	KernelIdle time.Duration
	// NoKernelWarmup starts a session's kernel with its first cell only;
	// by default a turn of a session without one starts it while the
	// model answers, when the Kernel is a KernelWarmer.
	NoKernelWarmup bool
	// WarmKernelIdle stops a kernel warmed for a turn that ran no cell in
	// it once the session's last turn ended this long ago, whatever
	// KernelIdle says (unless it is shorter), so that a session that
	// never runs a cell does not hold a kernel; zero means
	// DefaultWarmKernelIdle.
	WarmKernelIdle time.Duration
	// Sandbox, when set, tells how the kernel confines cells: the
	// session's glances show it and the instructions carry its line.
	Sandbox albedo.Sandbox
	// Tools are the program's tools, offered to the model after python,
	// which is always first; each call goes to its tool's handler. New
	// panics on tools CheckTools refuses.
	Tools []albedo.ToolDef
	// HostCalls are the program's host calls, offered to every cell after
	// albedo's own (vent, vents, resolve_vent) through the Cell the kernel
	// runs. New panics on host calls CheckHostCalls refuses.
	HostCalls []albedo.HostCall
	// ToolServers, when set, reaches the MCP servers of sessions'
	// workspaces: their tools are offered after the program's (within
	// ServerToolBudget, through Python beyond it), and cells reach them
	// through the mcp host calls.
	ToolServers albedo.ToolServers
	// Leases, when the store is shared with other processes, decide which
	// one runs each session's turn (see lease.go); nil: this process is
	// the store's only writer and runs every turn.
	Leases albedo.Leases
	// Checkpoints, when set, snapshots each session's workspace as a turn
	// starts and after each tool call, so that Rewind can undo what the
	// calls did to the files; nil takes no snapshot.
	Checkpoints albedo.Checkpoints
	// Changes, when the store is shared with other processes, tells of
	// their commits, whose events then reach this process's subscribers;
	// nil hears of none.
	Changes albedo.Changes
	// Live, when the store is shared with other processes, carries the
	// live events of the turns this process runs to their subscribers,
	// and theirs to this process's (see live.go); nil shares none.
	Live albedo.LiveEvents
	// WorkspaceMap maps the workspaces of sessions other machines made to
	// their folders here: the service shows, checks, snapshots and runs
	// kernels in the folder mapped, takes over only turns whose mapped
	// folder exists, and leaves the stored workspace as it was (see
	// mapped_store.go).
	WorkspaceMap albedo.WorkspaceMap
}

// DefaultCellTimeout bounds a cell whose call names no timeout.
const DefaultCellTimeout = 10 * time.Minute

// DefaultWarmKernelIdle is how long a kernel warmed for a turn and left
// unused is kept after the turn ends: long enough for the user's next
// message, short enough that sessions of chat alone hold no kernel.
const DefaultWarmKernelIdle = time.Minute

// errShutdown is the cause given to turns cancelled because the service is
// closing: they are left running in the store and resume at the next start.
var errShutdown = errors.New("albedo is shutting down")

// Service is the application: sessions, their turns, and the vent ledger.
// Frontends call its methods; it reaches the world only through its ports.
type Service struct {
	store        albedo.Store
	provider     albedo.Provider
	kernel       albedo.Kernel
	spool        albedo.OutputSpool
	workspaces   albedo.Workspaces
	config       albedo.ConfigSource
	clock        albedo.Clock
	log          *slog.Logger
	instructions string
	projectFiles albedo.InstructionSource
	catalog      albedo.ModelCatalog
	compactFrom  albedo.CompactionSource
	cellTimeout  time.Duration
	kernelIdle   time.Duration
	warmIdle     time.Duration
	noWarmup     bool
	sandbox      albedo.Sandbox
	// stopReaper ends the idle-kernel reaper and the lease keeper, if
	// they run.
	stopReaper chan struct{}
	// leases holds this process's leases; nil without Options.Leases.
	leases *leaseKeeper
	// changes reaches the other processes sharing the store; nil
	// without Options.Changes.
	changes albedo.Changes
	// live shares live events with the other processes sharing the
	// store; nil without Options.Live.
	live      albedo.LiveEvents
	commands  map[string]command
	hostCalls map[string]albedo.HostFunc
	// hostCallList declares the host calls to every cell, albedo's own
	// first.
	hostCallList []albedo.HostCallDecl
	// tools is the registry of tools, python first.
	tools []toolEntry
	// toolServers reaches MCP servers; nil for none.
	toolServers albedo.ToolServers
	// checkpoints snapshots workspaces; nil for none.
	checkpoints albedo.Checkpoints
	// workspaceMap maps stored workspaces to their folders here.
	workspaceMap albedo.WorkspaceMap

	mu       sync.Mutex
	sessions map[string]*sessionState
	// recent lists the sessions whose transcripts are cached, least
	// recently used first.
	recent []string
	closed bool
	// workers counts the goroutines Close waits for: running turns and the
	// idle-kernel reaper.
	workers sync.WaitGroup
}

// sessionState is the in-memory side of one session: its locks, its
// running turn and its subscribers.
//
// Two locks order what happens to a session. row orders the writers of its
// stored row and queue: it is held across the reads and the commit of a
// change, and whenever a turn starts or ends, so that a message is either
// queued for the running turn or starts one. mu guards the in-memory fields
// below and is never held across a call of the store, the provider or the
// kernel, so that an interrupt never waits for one. row is taken before
// mu, never while holding it.
type sessionState struct {
	row sync.Mutex
	mu  sync.Mutex
	// run is what runs as the session's turn (a turn or a /compact), nil
	// when it is idle; it is set and cleared under row and mu both.
	run *run
	// kernelLive is true once a cell ran in this process and no restart of
	// the kernel has been asked for since.
	kernelLive bool
	// kernelWarm is true once a kernel was warmed for a turn (see
	// warmKernel) and no cell ran nor restart was asked for since.
	kernelWarm bool
	// lastCell is when the session's last cell ended, or its kernel was
	// warmed, or a turn ended with its warmed kernel unused.
	lastCell time.Time
	hub      hub
	cache    transcriptCache
	// busy mirrors run != nil for readers that must not take mu.
	busy atomic.Bool
	// deleted is set once the session is deleted: no subscription opens.
	deleted atomic.Bool
	// unrecorded holds the closing items of a turn whose end could not be
	// stored: the turn is over in memory while the store still says the
	// session runs. The session's next message records them first. It is
	// guarded by row.
	unrecorded []albedo.Item
	// instr is what the session's instruction files were at its last
	// turn that told the model about them.
	instr instructionState
	// servers is what the model was last told of the MCP servers' tools.
	servers serverToolState
	// snapshotsOff says why the session's workspace takes no snapshots,
	// "" while it does; guarded by mu.
	snapshotsOff string
}

// New returns a Service wired to the given ports.
func New(opts Options) *Service {
	if len(opts.WorkspaceMap) > 0 {
		opts.Store = newMappedStore(opts.Store, opts.WorkspaceMap)
	}
	s := &Service{
		store:        newStatesStore(opts.Store),
		provider:     opts.Provider,
		kernel:       opts.Kernel,
		spool:        cmp.Or[albedo.OutputSpool](opts.Spool, noSpool{}),
		workspaces:   cmp.Or[albedo.Workspaces](opts.Workspaces, noWorkspaces{}),
		config:       opts.Config,
		clock:        cmp.Or[albedo.Clock](opts.Clock, systemClock{}),
		log:          cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		instructions: cmp.Or(opts.Instructions, albedo.DefaultInstructions),
		projectFiles: opts.ProjectInstructions,
		catalog:      opts.Catalog,
		compactFrom:  opts.Compaction,
		cellTimeout:  opts.CellTimeout,
		kernelIdle:   opts.KernelIdle,
		warmIdle:     opts.WarmKernelIdle,
		noWarmup:     opts.NoKernelWarmup,
		sandbox:      opts.Sandbox,
		toolServers:  opts.ToolServers,
		checkpoints:  opts.Checkpoints,
		workspaceMap: opts.WorkspaceMap,
		stopReaper:   make(chan struct{}),
		sessions:     make(map[string]*sessionState),
	}
	if s.cellTimeout <= 0 {
		s.cellTimeout = DefaultCellTimeout
	}
	s.commands = s.commandTable()
	s.newHostCalls(opts.HostCalls)
	s.tools = s.newToolRegistry(opts.Tools)
	if s.warmIdle <= 0 {
		s.warmIdle = DefaultWarmKernelIdle
	}
	if s.kernelIdle > 0 {
		s.warmIdle = min(s.warmIdle, s.kernelIdle)
	}
	if opts.Leases != nil {
		s.leases = &leaseKeeper{port: opts.Leases, held: make(map[string]heldLease), last: make(map[string]int64)}
		s.store = newStatesStore(fencedStore{Store: opts.Store, s: s})
		s.workers.Go(func() { s.keepLeases(s.stopReaper) })
	}
	if opts.Changes != nil {
		s.changes = opts.Changes
		s.workers.Go(func() { s.watchChanges(opts.Changes, s.stopReaper) })
	}
	if opts.Live != nil {
		s.live = opts.Live
		s.workers.Go(func() { s.shareLive(opts.Live, s.stopReaper) })
	}
	if every := s.reapEvery(); every > 0 {
		s.workers.Go(func() { s.reapIdleKernels(s.stopReaper, every) })
	}
	return s
}

// noSpool is the spool of a service that keeps no output.
type noSpool struct{}

// Append keeps nothing.
func (noSpool) Append(context.Context, string, int64, string) error { return nil }

// Read finds nothing.
func (noSpool) Read(context.Context, string, int64) (string, error) { return "", nil }

// Remove has nothing to remove.
func (noSpool) Remove(context.Context, string, int64) error { return nil }

// RemoveSession has nothing to remove.
func (noSpool) RemoveSession(context.Context, string) error { return nil }

// Flush has nothing to write.
func (noSpool) Flush(context.Context, string) error { return nil }

// systemClock is the clock of a service given none.
type systemClock struct{}

// Now is the system's time.
func (systemClock) Now() time.Time { return time.Now() }

// state returns the in-memory state of a session, creating it on first use.
func (s *Service) state(id string) *sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.sessions[id]
	if !ok {
		st = &sessionState{}
		if s.live != nil {
			st.hub.forward = func(ev albedo.Event, stamp int64) { s.live.Publish(id, stamp, ev) }
		}
		s.sessions[id] = st
	}
	return st
}

// isClosed reports whether Close was called: a closed service starts no
// turn.
func (s *Service) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// existing returns the in-memory state of a session that exists in the
// store, so that unknown ids never leave state behind.
func (s *Service) existing(ctx context.Context, id string) (*sessionState, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return nil, err
	}
	return s.state(id), nil
}

// withRow runs f on the state of an existing session while holding its
// row, for a change that reads the session and writes it back.
func withRow[T any](ctx context.Context, s *Service, id string, f func(*sessionState) (T, error)) (T, error) {
	st, err := s.existing(ctx, id)
	if err != nil {
		var zero T
		return zero, err
	}
	st.row.Lock()
	defer st.row.Unlock()
	return f(st)
}

// inRow is withRow for a change with no result.
func (s *Service) inRow(ctx context.Context, id string, f func(*sessionState) error) error {
	_, err := withRow(ctx, s, id, func(st *sessionState) (struct{}, error) { return struct{}{}, f(st) })
	return err
}

// Close stops every running turn, leaving it durable so that the next
// start resumes it, and stops every kernel. It does not close the store.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		close(s.stopReaper)
	}
	s.closed = true
	states := slices.Collect(maps.Values(s.sessions))
	s.mu.Unlock()
	for _, st := range states {
		if r := st.running(); r != nil {
			r.cancel(errShutdown)
		}
	}
	done := make(chan struct{})
	go func() { s.workers.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	for _, st := range states {
		st.hub.closeAll()
	}
	if err := s.kernel.Close(ctx); err != nil {
		return err
	}
	return nil
}

// now returns the current time in Unix milliseconds.
func (s *Service) now() int64 { return s.clock.Now().UnixMilli() }

// newID returns a fresh session id.
func newID() string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("albedo: no randomness: " + err.Error())
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// Title makes a session title from a user message: its first line, trimmed
// to 80 characters.
func Title(text string) string {
	t := albedo.Preview(text, 80)
	if t == "" {
		return albedo.DefaultTitle
	}
	return t
}

// noWorkspaces is the Workspaces of a service given none: no folder exists.
type noWorkspaces struct{}

// Folder says that nothing exists.
func (noWorkspaces) Folder(string) albedo.Folder { return albedo.FolderMissing }
