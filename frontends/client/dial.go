package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/albedo-agent/albedo/frontends/home"
)

// DialOptions say which daemon to reach and how to start one.
type DialOptions struct {
	// Home is the albedo home.
	Home string
	// Binary is the albedo executable that runs "albedo daemon"; empty
	// means this process's own executable.
	Binary string
	// NoStart makes Dial fail instead of starting a daemon.
	NoStart bool
	// Timeout bounds the wait for a new daemon; zero means 15 seconds.
	Timeout time.Duration
	// firstPoll is the first pause between two looks for a new daemon
	// that has not said it serves, doubling up to 50 ms; zero means 2 ms.
	// Tests set it long to see that the daemon's word suffices.
	firstPoll time.Duration
}

// ReadyFlag is the option of "albedo daemon" naming the file descriptor
// on which a daemon that a command started says it serves: it writes a
// byte there once daemon.json names it, then closes it. The command then
// connects at once rather than at its next look.
const ReadyFlag = "ready-fd"

// readyFD is the descriptor the daemon's ready pipe gets: the first after
// stdin, stdout and stderr.
const readyFD = 3

// ErrNoDaemon says no daemon runs for the home and none was started.
var ErrNoDaemon = errors.New("no albedo daemon is running")

// Dial returns a client of the home's daemon, starting the daemon detached
// (its own session and process group, output to daemon.log) when
// daemon.json is missing or names a dead process.
//
// When daemon.json names a live process, Dial does not ask it whether it
// serves: the client's first request does. Should that request find
// nothing listening (a daemon that is shutting down, a process id now
// used by another program), the client starts a daemon as above and
// sends the request there. With NoStart, Dial asks GET /health first and
// fails with ErrNoDaemon when no daemon answers.
func Dial(ctx context.Context, opts DialOptions) (*Client, error) {
	conn, err := home.ReadConnection(opts.Home)
	alive := err == nil && home.Alive(conn.PID)
	switch {
	case opts.NoStart && alive:
		if err := healthy(ctx, conn); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoDaemon, err)
		}
		return New(conn), nil
	case opts.NoStart:
		return nil, ErrNoDaemon
	case alive:
		c := New(conn)
		c.fallback = func(ctx context.Context) (home.Connection, error) { return handOff(ctx, opts) }
		return c, nil
	}
	conn, err = launch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return New(conn), nil
}

// handOff finds the daemon to ask instead of one that could not be
// reached or went away during a request: the one daemon.json names when
// it answers (one another command started meanwhile, or the same one if
// the break was passing), else a new one.
func handOff(ctx context.Context, opts DialOptions) (home.Connection, error) {
	if conn, err := serving(ctx, opts.Home); err == nil {
		return conn, nil
	}
	return launch(ctx, opts)
}

// launch starts a daemon and waits until the home's daemon answers: the
// one it started, or one that was starting already and kept the home.
func launch(ctx context.Context, opts DialOptions) (home.Connection, error) {
	exited, ready, done, err := start(opts)
	if err != nil {
		return home.Connection{}, err
	}
	defer done()
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	deadline := time.Now().Add(timeout)
	wait := opts.firstPoll
	if wait <= 0 {
		wait = 2 * time.Millisecond
	}
	for {
		conn, err := serving(ctx, opts.Home)
		if err == nil {
			return conn, nil
		}
		if time.Now().After(deadline) {
			return home.Connection{}, fmt.Errorf("the albedo daemon did not start within %s (see %s): %w", timeout, filepath.Join(opts.Home, home.LogFile), err)
		}
		select {
		case <-ctx.Done():
			return home.Connection{}, ctx.Err()
		case failure := <-exited:
			if failure != nil {
				return home.Connection{}, fmt.Errorf("the albedo daemon could not start: %w\n%s", failure, logTail(opts.Home))
			}
			exited = nil // it left the home to a daemon that was already starting
		case <-ready:
			// It serves (or gave up, closing the pipe): look at once.
			ready = nil
			continue
		case <-time.After(wait):
		}
		wait = min(wait*2, 50*time.Millisecond)
	}
}

// serving returns how to reach the home's daemon, if daemon.json names a
// live process that answers GET /health.
func serving(ctx context.Context, dir string) (home.Connection, error) {
	conn, err := home.ReadConnection(dir)
	if err != nil {
		return conn, err
	}
	if !home.Alive(conn.PID) {
		return conn, fmt.Errorf("daemon %d is gone", conn.PID)
	}
	return conn, healthy(ctx, conn)
}

// healthy asks the daemon conn describes whether it is up.
func healthy(ctx context.Context, conn home.Connection) error {
	c := New(conn)
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := c.Health(hctx)
	return err
}

// start launches "albedo daemon" detached from this process. The first
// channel reports the daemon's exit status if it ends while this process
// waits; the second is closed once the daemon says it serves, or closes
// its end of the ready pipe (by exiting, say). The caller calls done once
// it waits no more.
func start(opts DialOptions) (exited <-chan error, ready <-chan struct{}, done func(), err error) {
	bin := opts.Binary
	if bin == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("find the albedo binary: %w", err)
		}
		bin = self
	}
	if err := os.MkdirAll(opts.Home, 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("create home %s: %w", opts.Home, err)
	}
	logFile, err := os.OpenFile(filepath.Join(opts.Home, home.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open daemon log: %w", err)
	}
	defer logFile.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("make the daemon's ready pipe: %w", err)
	}
	defer readyW.Close()
	cmd := exec.Command(bin, "daemon", "--detached", fmt.Sprintf("--%s=%d", ReadyFlag, readyFD)) // stdin: the null device
	cmd.Env = append(os.Environ(), "ALBEDO_HOME="+opts.Home)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.ExtraFiles = []*os.File{readyW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		readyR.Close()
		return nil, nil, nil, fmt.Errorf("start the albedo daemon: %w", err)
	}
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait() }()
	said := make(chan struct{})
	go func() {
		defer close(said)
		var b [1]byte
		readyR.Read(b[:])
	}()
	return exit, said, func() { readyR.Close() }, nil
}

// logTail returns the end of the daemon's log, for error messages.
func logTail(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, home.LogFile))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}
