package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/albedo-agent/albedo/frontends/compose"
	"github.com/albedo-agent/albedo/frontends/home"
)

// Options configure an embedded albedo. The zero value works: it uses the
// default home and the default adapters. Every port left nil gets the
// default adapter, which the returned *Albedo owns and closes; a port set
// here stays the caller's to close. See compose.Options for each field.
type Options = compose.Options

// closeGrace bounds how long Close waits for running turns to wind down.
const closeGrace = 5 * time.Second

// Albedo is albedo running in this process. Its methods are safe for
// concurrent use. Close it when done: running turns stop (and resume at the
// next Open of the same store), default kernels end and the default store
// closes.
type Albedo struct {
	asm *compose.Assembly
	app *app.App
	// lock is the home's lock, held when Open took it.
	lock *os.File

	closeOnce sync.Once
	closeErr  error
}

var _ wire.Agent = (*Albedo)(nil)

// Open starts albedo in this process: it wires the ports (Assemble),
// takes the home's lock when it opened the home's database, and resumes
// the turns that were running when the store was last used.
func Open(ctx context.Context, opts Options) (*Albedo, error) {
	var lock *os.File
	if opts.Store == nil {
		dir, err := opts.HomeDir()
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
// interrupted turns: for a host that manages the home itself. Programs
// call Open.
func Assemble(ctx context.Context, opts Options) (*Albedo, error) {
	asm, err := compose.Assemble(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Albedo{asm: asm, app: asm.App()}, nil
}

// Service returns the domain service underneath, for what the API does not
// cover (such as Commands, Tail or PendingReplies).
func (a *Albedo) Service() *engine.Service { return a.asm.Service() }

// Recover resumes every turn that was running when the store was last
// used, and returns how many it resumed. Open calls it.
func (a *Albedo) Recover(ctx context.Context) (int, error) { return a.asm.Recover(ctx) }

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
		if err := a.asm.Shutdown(ctx); err != nil {
			errs = append(errs, err)
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

// failed says what was being done, doing formatted with args, when err
// happened; it is nil when err is.
func failed(err error, doing string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(doing, args...), err)
}
