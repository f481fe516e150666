package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/adapters/configfile"
	"github.com/albedo-agent/albedo/adapters/openai"
	"github.com/albedo-agent/albedo/adapters/pykernel"
	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// closeGrace bounds how long Close waits for running turns to wind down.
const closeGrace = 5 * time.Second

// Albedo is albedo running in this process. Its methods are safe for
// concurrent use. Close it when done: running turns stop (and resume at the
// next Open of the same store), default kernels end and the default store
// closes.
type Albedo struct {
	svc *albedo.Service
	// store is closed by Shutdown when Albedo opened it.
	store albedo.Store
	// ownStore is true when store was opened by Assemble.
	ownStore bool
	// lock is the home's lock, held when Open took it.
	lock *os.File

	closeOnce sync.Once
	closeErr  error
}

// Open starts albedo in this process: it wires the ports (Assemble),
// takes the home's lock when it opened the home's database, and resumes
// the turns that were running when the store was last used.
func Open(ctx context.Context, opts Options) (*Albedo, error) {
	var lock *os.File
	if opts.Store == nil {
		dir, err := opts.homeDir()
		if err != nil {
			return nil, err
		}
		if lock, err = home.Lock(dir); err != nil {
			return nil, err
		}
		opts.Home = dir
	}
	a, err := Assemble(ctx, opts)
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	a.lock = lock
	if _, err := a.Recover(ctx); err != nil {
		return nil, errors.Join(err, a.Close())
	}
	return a, nil
}

// Assemble wires albedo's service to the ports in opts, filling in the
// default adapters, without taking the home's lock and without resuming
// interrupted turns. It is for a host that manages the home itself, such
// as the daemon, which calls Recover once it serves; programs call Open.
func Assemble(ctx context.Context, opts Options) (*Albedo, error) {
	a := &Albedo{store: opts.Store}
	var dir string
	if opts.usesHome() {
		var err error
		if dir, err = opts.homeDir(); err != nil {
			return nil, err
		}
	}
	if a.store == nil {
		store, err := sqlite.Open(ctx, filepath.Join(dir, home.DatabaseFile))
		if err != nil {
			return nil, fmt.Errorf("open the store of home %s: %w", dir, err)
		}
		a.store, a.ownStore = store, true
	}
	kernel := opts.Kernel
	if kernel == nil {
		kernel = pykernel.New(pykernel.Options{
			Host:   a.hostCall,
			Logger: opts.Logger,
		})
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
	a.svc = albedo.New(albedo.Options{
		Store:        a.store,
		Provider:     provider,
		Kernel:       kernel,
		Config:       config,
		Clock:        opts.Clock,
		Logger:       opts.Logger,
		Instructions: opts.Instructions,
		CellTimeout:  opts.CellTimeout,
		KernelIdle:   opts.KernelIdle,
	})
	return a, nil
}

// hostCall answers the calls a running cell makes back into albedo.
func (a *Albedo) hostCall(ctx context.Context, session, name string, args json.RawMessage) (json.RawMessage, error) {
	return a.svc.HostCall(ctx, session, name, args)
}

// borrowedKernel is a kernel the caller passed in: Albedo stops the cells
// it runs but leaves closing it to the caller.
type borrowedKernel struct{ albedo.Kernel }

// Close leaves the kernel to its owner.
func (borrowedKernel) Close(context.Context) error { return nil }

// Service returns the domain service underneath, for what the API does not
// cover (such as Commands, Tail or PendingReplies).
func (a *Albedo) Service() *albedo.Service { return a.svc }

// Recover resumes every turn that was running when the store was last
// used, and returns how many it resumed. Open calls it.
func (a *Albedo) Recover(ctx context.Context) (int, error) {
	n, err := a.svc.Recover(ctx)
	if err != nil {
		return n, fmt.Errorf("resume interrupted turns: %w", err)
	}
	return n, nil
}

// Close stops albedo, waiting a few seconds at most for running turns to
// wind down. See Shutdown.
func (a *Albedo) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	return a.Shutdown(ctx)
}

// Shutdown stops albedo: running turns stop and stay durable, so the next
// Open of the same store resumes them; the default kernel ends; the store
// closes if Open or Assemble opened it, and the home's lock is released.
// Ports passed in Options are left open. ctx bounds the wait for turns.
// Later calls return the first call's result.
func (a *Albedo) Shutdown(ctx context.Context) error {
	a.closeOnce.Do(func() {
		var errs []error
		if err := a.svc.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop albedo: %w", err))
		}
		if a.ownStore {
			if err := a.store.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close the store: %w", err))
			}
		}
		if a.lock != nil {
			if err := a.lock.Close(); err != nil {
				errs = append(errs, fmt.Errorf("release the home's lock: %w", err))
			}
		}
		a.closeErr = errors.Join(errs...)
	})
	return a.closeErr
}

// ErrHomeInUse says another process, such as a running daemon, serves the
// home. Reach that daemon with frontends/client, or use another home.
var ErrHomeInUse = home.ErrInUse
