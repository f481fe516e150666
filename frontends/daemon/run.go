package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/compose"
	"github.com/albedo-agent/albedo/frontends/home"
	"github.com/albedo-agent/albedo/frontends/web"
	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// Options configure a daemon process.
type Options struct {
	// Home is the albedo home (ALBEDO_HOME).
	Home string
	// Port fixes the port; 0 picks a free one.
	Port int
	// ParentPID, when positive, is a process whose end stops the daemon.
	ParentPID int
	// KernelIdle stops kernels idle this long; 0 keeps them.
	KernelIdle time.Duration
	// NoKernelWarmup starts a session's kernel with its first cell only,
	// not while the model answers the turn's first request.
	NoKernelWarmup bool
	// ProviderIdle fails a model request silent this long; 0 means the
	// provider adapter's default.
	ProviderIdle time.Duration
	// Version is reported by /health.
	Version string
	// SandboxHelper and LandlockABI are compose.Options' fields of the
	// same names.
	SandboxHelper []string
	LandlockABI   func() int
	// AllowAnyWorkspace is compose.Options' field of the same name.
	AllowAnyWorkspace bool
	// StoreURL is compose.Options' field of the same name: a PostgreSQL
	// database instead of the home's SQLite file.
	StoreURL string
	// Node, LeaseTTL and WorkspaceMap are compose.Options' fields of the
	// same names.
	Node         string
	LeaseTTL     time.Duration
	WorkspaceMap albedo.WorkspaceMap
	// AllowedHosts is APIOptions' field of the same name.
	AllowedHosts []string
	// Ready, when set, is called once the daemon serves and daemon.json
	// names it.
	Ready func()
	// Detached says a command started the daemon because it found none
	// serving: when another daemon serves the home after all, Run leaves
	// it serving and returns nil. Without it Run fails with ErrServed.
	Detached bool
}

// ErrServed says another daemon already serves the home.
var ErrServed = errors.New("another daemon already serves ALBEDO_HOME")

// shutdownGrace bounds how long a stopping daemon waits for requests and
// turns to wind down.
const shutdownGrace = 5 * time.Second

// Run runs a daemon until it is told to stop (POST /shutdown, SIGTERM,
// SIGINT, ctx, or the end of its parent process). When another daemon
// already serves the home, Run fails with an error wrapping ErrServed that
// names its pid, or returns nil if opts.Detached. A daemon that holds the
// home's lock while it dies or starts is waited for: the home is served
// once the lock is free, and left to the other once it answers.
func Run(ctx context.Context, opts Options) error {
	if err := os.MkdirAll(opts.Home, 0o700); err != nil {
		return fmt.Errorf("create home %s: %w", opts.Home, err)
	}
	logFile, err := os.OpenFile(filepath.Join(opts.Home, home.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	defer logFile.Close()
	log := slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: slog.LevelInfo}))

	lock, other, err := takeHome(ctx, opts.Home)
	if err != nil {
		return err
	}
	if lock == nil {
		log.Info("another daemon serves the home; leaving it to serve", "pid", os.Getpid(), "serving", other.PID)
		if opts.Detached {
			return nil
		}
		return servedError{pid: other.PID}
	}
	defer lock.Close()
	if _, err := home.ReadExtensions(opts.Home); err != nil {
		log.Warn("extension settings ignored", "err", err)
	}

	d, err := assemble(ctx, opts, log)
	if err != nil {
		log.Error("start failed", "err", err)
		return err
	}
	return d.serve(ctx, opts)
}

// daemon is one assembled daemon process.
type daemon struct {
	dir string
	log *slog.Logger
	// asm owns the store and the kernels; svc is its service.
	asm *compose.Assembly
	svc *engine.Service
}

// assemble wires the default adapters of the home into the domain service,
// through the composition root a program embedding albedo uses too. The daemon holds the home's
// lock itself and resumes interrupted turns once it serves.
func assemble(ctx context.Context, opts Options, log *slog.Logger) (*daemon, error) {
	a, err := compose.Assemble(ctx, compose.Options{
		Home: opts.Home, Logger: log, KernelIdle: opts.KernelIdle, ProviderIdle: opts.ProviderIdle,
		NoKernelWarmup: opts.NoKernelWarmup,
		SandboxHelper:  opts.SandboxHelper, LandlockABI: opts.LandlockABI,
		AllowAnyWorkspace: opts.AllowAnyWorkspace, StoreURL: opts.StoreURL,
		Node: opts.Node, LeaseTTL: opts.LeaseTTL, WorkspaceMap: opts.WorkspaceMap,
	})
	if err != nil {
		return nil, err
	}
	return &daemon{dir: opts.Home, log: log, asm: a, svc: a.Service()}, nil
}

// close stops what assemble started, within the shutdown grace.
func (d *daemon) close() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	d.asm.Shutdown(ctx)
}

// serve listens, publishes daemon.json, resumes interrupted turns and
// waits for the end.
func (d *daemon) serve(ctx context.Context, opts Options) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	if err != nil {
		d.close()
		return fmt.Errorf("listen: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	token, err := newToken()
	if err != nil {
		d.close()
		return err
	}
	key, err := web.ReadKey(d.dir)
	if err != nil {
		d.close()
		return err
	}
	logins, err := web.NewLogins(web.LoginOptions{Key: key, NewKey: func() ([]byte, error) { return web.NewKey(d.dir) }})
	if err != nil {
		d.close()
		return err
	}
	stop := make(chan struct{})
	var once sync.Once
	shutdown := func() { once.Do(func() { close(stop) }) }
	limits := defaultLimits()
	srv := newServer(NewHandler(APIOptions{
		Service: d.svc, Token: token, Port: strconv.Itoa(port), AllowedHosts: opts.AllowedHosts,
		Shutdown: shutdown, Done: stop, Logger: d.log, Version: opts.Version,
		Store: d.asm.StoreKind(), Node: d.asm.Node(), MCP: d.asm.MCPServers(), Logins: logins,
	}), limits, d.log)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(limitConns(ln, limits.MaxConns)) }()

	// Interrupted rewinds finish and interrupted turns resume before
	// clients learn where the daemon is, so that no client ever sees a
	// crashed turn that is not resuming.
	if n, err := d.asm.Recover(ctx); err != nil {
		d.log.Error("recover interrupted turns", "err", err)
	} else if n > 0 {
		d.log.Info("resumed interrupted turns", "count", n)
	}
	conn := home.Connection{PID: os.Getpid(), Port: port, Token: token}
	data, _ := json.Marshal(conn)
	// Without daemon.json no client finds the daemon: it stops, and says
	// why, rather than serve no one.
	var publishErr error
	if err := atomicfile.Write(filepath.Join(d.dir, home.ConnectionFile), data, 0o600); err != nil {
		publishErr = fmt.Errorf("publish the connection: %w", err)
		d.log.Error("publish the connection", "err", err)
		shutdown()
	}
	d.log.Info("serving", "pid", conn.PID, "port", port, "max_connections", limits.MaxConns)
	if opts.Ready != nil && publishErr == nil {
		opts.Ready()
	}

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(signals)
	if opts.ParentPID > 0 {
		go watchParent(opts.ParentPID, stop, shutdown)
	}
	limitMemory()
	returnTicks := time.NewTicker(returnEvery)
	defer returnTicks.Stop()
	returnCtx, stopReturning := context.WithCancel(ctx)
	defer stopReturning()
	go newMemoryReturner().run(returnCtx, returnTicks.C)
	var serveErr error
	select {
	case <-stop:
	case sig := <-signals:
		d.log.Info("stopping on signal", "signal", sig.String())
	case <-ctx.Done():
	case serveErr = <-served:
	}
	shutdown()
	return errors.Join(publishErr, d.stop(srv, conn, serveErr))
}

// stop winds the daemon down: requests finish, turns are left resumable,
// kernels end, the store closes and daemon.json goes away.
func (d *daemon) stop(srv *http.Server, conn home.Connection, serveErr error) error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		d.log.Warn("close http server", "err", err)
	}
	if err := d.asm.Shutdown(ctx); err != nil {
		d.log.Warn("stop albedo", "err", err)
	}
	if cur, err := home.ReadConnection(d.dir); err == nil && cur.PID == conn.PID {
		os.Remove(filepath.Join(d.dir, home.ConnectionFile))
	}
	d.log.Info("stopped", "pid", conn.PID)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	return nil
}

func newToken() (string, error) {
	var b [32]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		return "", fmt.Errorf("make token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// watchParent stops the daemon once the parent process is gone.
func watchParent(pid int, stop <-chan struct{}, shutdown func()) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if !home.Alive(pid) {
				shutdown()
				return
			}
		}
	}
}

// servedError names the daemon that already serves the home.
type servedError struct{ pid int }

// Error says which daemon serves.
func (e servedError) Error() string {
	return fmt.Sprintf("another daemon (pid %d) already serves ALBEDO_HOME", e.pid)
}

// Unwrap makes the error match ErrServed.
func (e servedError) Unwrap() error { return ErrServed }

// takeWithin bounds how long a starting daemon waits for the daemon that
// holds the home's lock to either answer or let go of it.
const takeWithin = 10 * time.Second

// takeHome takes the home's lock, or returns how to reach the daemon that
// holds it and answers. A holder that does not answer is starting or
// dying: takeHome tries again until one or the other happens.
func takeHome(ctx context.Context, dir string) (*os.File, home.Connection, error) {
	deadline := time.Now().Add(takeWithin)
	var (
		c    *client.Client
		seen home.Connection
	)
	for {
		lock, err := home.Lock(dir)
		if err == nil {
			return lock, home.Connection{}, nil
		}
		if !errors.Is(err, home.ErrInUse) {
			return nil, home.Connection{}, err
		}
		if conn, err := home.ReadConnection(dir); err == nil && home.Alive(conn.PID) {
			if c == nil || conn != seen {
				c, seen = client.New(conn), conn
			}
			hctx, cancel := context.WithTimeout(ctx, time.Second)
			h, err := c.Health(hctx)
			cancel()
			if err == nil && h.OK {
				return nil, conn, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, home.Connection{}, fmt.Errorf("another process holds the lock of %s but serves nothing: %w", dir, home.ErrInUse)
		}
		select {
		case <-ctx.Done():
			return nil, home.Connection{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
