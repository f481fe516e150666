package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/albedo-agent/albedo/adapters/landlock"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/daemon"
)

// defaultKernelIdle stops kernels idle for this long.
const defaultKernelIdle = 30 * time.Minute

func runDaemon(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "daemon")
	detached := fs.Bool("detached", false, "started by a command that found no daemon: when another daemon serves the home, leave it serving and exit 0 without a word")
	readyFD := fs.Int(client.ReadyFlag, -1, "write a byte to the file descriptor `FD` once serving, then close it (a command that starts the daemon passes a pipe)")
	if err := parse(fs, args); err != nil {
		return err
	}
	ready, err := readyPipe(*readyFD)
	if err != nil {
		return err
	}
	dir, err := e.albedoHome()
	if err != nil {
		return err
	}
	var vars environment
	opts := daemon.Options{Home: dir, Version: version, KernelIdle: defaultKernelIdle, Detached: *detached, Ready: ready,
		Port: vars.int("ALBEDO_PORT", 0), ParentPID: vars.int("ALBEDO_PARENT_PID", 0)}
	if idle := vars.int("ALBEDO_IDLE_SECONDS", -1); idle >= 0 {
		opts.KernelIdle = time.Duration(idle) * time.Second
	}
	opts.NoKernelWarmup = vars.int("ALBEDO_KERNEL_WARMUP", 1) == 0
	opts.ProviderIdle = time.Duration(vars.int("ALBEDO_PROVIDER_IDLE_SECONDS", 0)) * time.Second
	opts.LeaseTTL = time.Duration(vars.int("ALBEDO_LEASE_SECONDS", 0)) * time.Second
	opts.Node = os.Getenv("ALBEDO_NODE")
	if opts.WorkspaceMap, err = albedo.ParseWorkspaceMap(os.Getenv("ALBEDO_WORKSPACE_MAP")); err != nil {
		return fmt.Errorf("ALBEDO_WORKSPACE_MAP: %w", err)
	}
	if err := sandboxOptions(&opts, &vars); err != nil {
		return err
	}
	if vars.err != nil {
		return vars.err
	}
	if err := landlock.ProtectDaemon(); err != nil {
		return err
	}
	if opts.StoreURL, err = storeURL(); err != nil {
		return err
	}
	opts.AllowedHosts = allowedHosts(os.Getenv("ALBEDO_ALLOWED_HOSTS"))
	return daemon.Run(ctx, opts)
}

// readyPipe takes the file descriptor fd that the command starting the
// daemon passed (none when negative) out of every program the daemon
// starts, and returns what says on it that the daemon serves.
func readyPipe(fd int) (func(), error) {
	if fd < 0 {
		return nil, nil
	}
	if fd <= 2 {
		return nil, usageError{fmt.Sprintf("--%s=%d: not a descriptor of its own", client.ReadyFlag, fd)}
	}
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "ready")
	if f == nil {
		return nil, usageError{fmt.Sprintf("--%s=%d: no such descriptor", client.ReadyFlag, fd)}
	}
	return func() {
		f.Write([]byte{1})
		f.Close()
	}, nil
}

// allowedHosts reads ALBEDO_ALLOWED_HOSTS: comma-separated Host values
// (host or host:port) the daemon answers besides its own loopback address,
// such as the local end of the user's tunnel to it.
func allowedHosts(v string) []string {
	var out []string
	for h := range strings.SplitSeq(v, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// environment reads whole numbers from the environment and keeps the
// first that is not one.
type environment struct{ err error }

// int reads the variable name, def when it is unset or after a mistake.
func (env *environment) int(name string, def int) int {
	v := os.Getenv(name)
	if v == "" || env.err != nil {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		env.err = fmt.Errorf("%s=%q is not a whole number", name, v)
		return def
	}
	return n
}

// sandboxOptions makes this binary the kernels' sandbox helper and reads
// ALBEDO_LANDLOCK_ABI, which plays a machine whose Landlock has that ABI
// (0: none) when it is lower than the real one.
func sandboxOptions(opts *daemon.Options, vars *environment) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding albedo's binary for the sandbox helper: %w", err)
	}
	opts.SandboxHelper = sandboxHelper(exe)
	if abi := vars.int("ALBEDO_LANDLOCK_ABI", -1); abi >= 0 {
		opts.LandlockABI = func() int { return min(abi, landlock.KernelABI()) }
	}
	// ALBEDO_ALLOW_ANY_WORKSPACE=1 lets sessions work in /, the user's
	// home or albedo's home, refused by default.
	opts.AllowAnyWorkspace = os.Getenv("ALBEDO_ALLOW_ANY_WORKSPACE") == "1"
	return nil
}

// sandboxHelper returns the command that confines a kernel: albedo-sandbox
// when it lies beside albedo's binary exe (it starts in a few milliseconds),
// else albedo's own "sandbox-exec".
func sandboxHelper(exe string) []string {
	small := filepath.Join(filepath.Dir(exe), "albedo-sandbox")
	if info, err := os.Stat(small); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
		return []string{small}
	}
	return []string{exe, landlock.HelperCommand}
}

// storeURL reads ALBEDO_STORE_URL: a PostgreSQL URL (postgres:// or
// postgresql://) makes the daemon keep its data in that database instead of
// ALBEDO_HOME's SQLite file. Kernels never see the variable (no ALBEDO_*
// variable reaches them).
func storeURL() (string, error) {
	u := os.Getenv("ALBEDO_STORE_URL")
	if u == "" || strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://") {
		return u, nil
	}
	return "", fmt.Errorf("ALBEDO_STORE_URL must be a postgres:// or postgresql:// URL (or empty for the SQLite store in ALBEDO_HOME)")
}
