package pykernel

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// Kernels runs Python cells in one python3 process per session. It
// implements albedo.Kernel and is safe for concurrent use; the cells of one
// session run one at a time.
type Kernels struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	// interpreters remembers, by workspace, the real interpreter behind
	// Options.Python, so that later kernels there skip a version manager's
	// shim (pyenv's costs a shell start). It is learnt once per workspace
	// and daemon; guarded by mu.
	interpreters map[string]string
	// versions remembers, by workspace, the Python version the last
	// kernel started there reported; guarded by mu.
	versions map[string]string
	// defaultVersion is the version of Options.Python that ProbeVersion
	// learnt, told for workspaces no kernel started in; guarded by mu.
	defaultVersion string
	// probe is the version probe ProbeVersion started, if any; guarded by
	// mu.
	probe *background
}

var _ albedo.Kernel = (*Kernels)(nil)

// session is one session's place for a kernel.
type session struct {
	id string
	// turn holds a token while a cell runs, the kernel is replaced, or a
	// warm start is in progress.
	turn chan struct{}
	// proc is the running kernel, if any; guarded by Kernels.mu.
	proc *process
	// warming is the warm start in progress, if any; guarded by
	// Kernels.mu.
	warming *background
	// started says a kernel of the session took a cell before; guarded
	// by turn.
	started bool
}

// ErrClosed is the error of Run after Close.
var ErrClosed = errors.New("the python kernels are closed")

// New returns Kernels configured by opts. Kernels start with the first cell
// of their session, or before it when warmed (see Warm).
func New(opts Options) *Kernels {
	return &Kernels{
		opts: opts.withDefaults(), sessions: make(map[string]*session), interpreters: make(map[string]string),
		versions: make(map[string]string),
	}
}

// Run runs a cell in its session's kernel, starting the kernel first when
// the session has none. A failure to start it is an error; everything that
// happens to the cell, the kernel's death included, is a result.
func (k *Kernels) Run(ctx context.Context, cell albedo.Cell) (albedo.CellResult, error) {
	s, err := k.session(cell.SessionID)
	if err != nil {
		return albedo.CellResult{}, err
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return notStarted(), nil
	}
	defer func() { <-s.turn }()
	if ctx.Err() != nil {
		return notStarted(), nil
	}
	// A kernel that died before it took the cell (say, between cells) ran
	// none of it: the cell goes to a fresh kernel, once.
	for attempt := 0; ; attempt++ {
		p, err := k.kernel(ctx, s, cell.Workspace)
		if err != nil {
			if ctx.Err() != nil {
				return notStarted(), nil
			}
			return albedo.CellResult{}, err
		}
		// Only a kernel's first cell can find the globals of an earlier
		// kernel gone; a kernel warmed ahead of it is no earlier kernel.
		fresh := s.started && !p.tookCell
		res, reached := p.run(ctx, cell, k.opts.OutputLimit)
		p.tookCell = true
		if reached {
			s.started = true
		}
		k.settle(s, p)
		if !reached && attempt == 0 && ctx.Err() == nil {
			continue
		}
		res.Fresh = fresh
		return res, nil
	}
}

// Stop ends a session's kernel, if it has one, and waits until it is gone.
// A cell it was running ends with status interrupted; a warm start in
// progress ends too.
func (k *Kernels) Stop(ctx context.Context, sessionID string) error {
	k.mu.Lock()
	var w *background
	if s := k.sessions[sessionID]; s != nil {
		w = s.warming
	}
	k.mu.Unlock()
	if err := w.end(ctx); err != nil {
		return err
	}
	k.mu.Lock()
	var p *process
	if s := k.sessions[sessionID]; s != nil {
		p, s.proc = s.proc, nil
	}
	k.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.stop(ctx)
}

// RunningJobs counts the background jobs still running in a session's
// kernel.
func (k *Kernels) RunningJobs(sessionID string) int {
	k.mu.Lock()
	var p *process
	if s := k.sessions[sessionID]; s != nil {
		p = s.proc
	}
	k.mu.Unlock()
	return p.runningJobs()
}

// Close ends every kernel and the version probe, and waits until they are
// gone. Later cells fail.
func (k *Kernels) Close(ctx context.Context) error {
	k.mu.Lock()
	k.closed = true
	probe := k.probe
	var procs []*process
	var warms []*background
	for _, s := range k.sessions {
		if s.proc != nil {
			procs = append(procs, s.proc)
			s.proc = nil
		}
		if s.warming != nil {
			warms = append(warms, s.warming)
		}
	}
	k.mu.Unlock()
	for _, p := range procs {
		p.stopped.Store(true)
		p.kill()
	}
	var errs []error
	// A warm start ends by itself once cancelled, and keeps no kernel
	// after Close.
	for _, w := range warms {
		w.cancel()
	}
	for _, w := range warms {
		if err := w.end(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range procs {
		if err := p.stop(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := probe.end(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// session returns the session's place, making it on first use.
func (k *Kernels) session(id string) (*session, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, ErrClosed
	}
	return k.sessionLocked(id), nil
}

// sessionLocked returns the session's place, making it on first use. The
// caller holds k.mu.
func (k *Kernels) sessionLocked(id string) *session {
	s := k.sessions[id]
	if s == nil {
		s = &session{id: id, turn: make(chan struct{}, 1)}
		k.sessions[id] = s
	}
	return s
}

// kernel returns the session's running kernel, starting one when it has
// none. The caller holds the session's turn.
func (k *Kernels) kernel(ctx context.Context, s *session, workspace string) (*process, error) {
	k.mu.Lock()
	p := s.proc
	if p != nil && p.gone() {
		s.proc, p = nil, nil
	}
	// A confined kernel serves only its workspace; a warmed one that took
	// no cell yet is for the workspace it was warmed in, which a move may
	// have changed since.
	var unfit *process
	if p != nil && (p.confinedTo != "" && p.confinedTo != workspace || !p.tookCell && p.workspace != workspace) {
		unfit, s.proc, p = p, nil, nil
	}
	k.mu.Unlock()
	if unfit != nil {
		_ = unfit.stop(ctx)
	}
	if p != nil {
		return p, nil
	}
	p, err := k.start(ctx, s.id, workspace)
	if err != nil {
		return nil, fmt.Errorf("starting the python kernel of session %s: %w", s.id, err)
	}
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		_ = p.stop(context.Background())
		return nil, ErrClosed
	}
	s.proc = p
	k.mu.Unlock()
	return p, nil
}

// settle forgets a kernel that is gone after a cell. The caller holds the
// session's turn.
func (k *Kernels) settle(s *session, p *process) {
	if p.gone() {
		k.mu.Lock()
		if s.proc == p {
			s.proc = nil
		}
		k.mu.Unlock()
	}
}

// notStarted is the result of a cell interrupted before it began.
func notStarted() albedo.CellResult {
	return albedo.CellResult{
		Status: albedo.CellInterrupted,
		Error:  "The cell was interrupted before it started.",
		Trace:  emptyTrace(),
	}
}

// start starts a kernel in workspace, with the interpreter learnt there
// before when there is one, falling back to Options.Python if that fails.
func (k *Kernels) start(ctx context.Context, sessionID, workspace string) (*process, error) {
	k.mu.Lock()
	known := k.interpreters[workspace]
	k.mu.Unlock()
	if known != "" {
		p, err := start(ctx, &k.opts, known, sessionID, workspace)
		if err == nil {
			return p, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		k.opts.Logger.Warn("the interpreter learnt for this workspace failed; asking for it again", "python", known, "err", err)
	}
	p, err := start(ctx, &k.opts, k.opts.Python, sessionID, workspace)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	if p.executable != "" {
		k.interpreters[workspace] = p.executable
	} else {
		delete(k.interpreters, workspace)
	}
	if p.version != "" {
		k.versions[workspace] = p.version
	}
	k.mu.Unlock()
	return p, nil
}
