//go:build linux

package landlock

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// inheritedFDs are the descriptors the helper passes on to the kernel: the
// standard ones and the kernel's two pipes to the daemon (fds 3 and 4).
const inheritedFDs = 5

// superviseNamespace is the helper started as the first process of a PID
// namespace of its own (the daemon starts kernels so): it starts itself
// again as the namespace's second process, which confines itself and execs
// the kernel as usual, and stays to do what only the first process can.
// It reaps every process left to it (what a cell double-forked or nohup'd),
// passes the daemon's SIGINT on to the kernel's main thread, ends on SIGHUP
// (the daemon died: the signal the daemon asks for as its death signal) or
// SIGTERM, and exits with the kernel's status once the kernel is gone, a
// signal's death as 128 plus its number. Linux then kills every process
// left in the namespace: nothing a cell started outlives its kernel.
func superviseNamespace(spec Spec, stderr io.Writer) int {
	if err := mapOwnIDs(spec.UID, spec.GID); err != nil {
		fmt.Fprintf(stderr, "albedo sandbox: %v\n", err)
		return 126
	}
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGCHLD)
	files := make([]uintptr, inheritedFDs)
	for fd := range files {
		files[fd] = ^uintptr(0) // closed in the kernel
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			files[fd] = uintptr(fd)
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		dir = ""
	}
	// The kernel gets a mount namespace of its own, where it mounts a
	// /proc of this PID namespace (see mountOwnProc).
	env := append(os.Environ(), ownProcVariable+"=1")
	attr := &syscall.ProcAttr{Dir: dir, Env: env, Files: files, Sys: &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}}
	kernel, err := syscall.ForkExec("/proc/self/exe", os.Args, attr)
	if err != nil {
		// No mount namespace allowed: the kernel runs with the /proc it has.
		attr.Env, attr.Sys = os.Environ(), nil
		kernel, err = syscall.ForkExec("/proc/self/exe", os.Args, attr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "albedo sandbox: starting the kernel in its namespace: %v\n", err)
		return 126
	}
	// The kernel holds the pipes now; the daemon sees them close with it.
	for fd := 3; fd < inheritedFDs; fd++ {
		_ = unix.Close(fd)
	}
	for sig := range signals {
		switch sig {
		case syscall.SIGINT:
			_ = unix.Tgkill(kernel, kernel, unix.SIGINT)
		case syscall.SIGHUP, syscall.SIGTERM:
			return 128 + int(sig.(syscall.Signal))
		case syscall.SIGCHLD:
			if code, ended := reap(kernel); ended {
				return code
			}
		}
	}
	return 0 // not reached: the channel is never closed
}

// reap collects every child that has exited and reports the kernel's exit
// status once it is among them.
func reap(kernel int) (code int, ended bool) {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return code, ended
		}
		if pid != kernel {
			continue
		}
		ended = true
		code = ws.ExitStatus()
		if ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	}
}

// mapOwnIDs maps, in a user namespace that has no ids mapped yet, the
// user uid and the group gid to themselves, with setgroups denied. An
// unprivileged daemon starts the helper so: being non-dumpable, it may not
// write its child's maps, and passes the helper the ambient capabilities
// to write its own (and to mount the namespace's /proc), which the helper
// drops before it execs the kernel. A namespace already mapped (or none
// of the helper's own) is left as it is.
func mapOwnIDs(uid, gid int) error {
	current, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return fmt.Errorf("reading the user namespace's map: %w", err)
	}
	if len(bytes.TrimSpace(current)) > 0 {
		return nil
	}
	writes := []struct{ file, line string }{
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/uid_map", fmt.Sprintf("%d %d 1", uid, uid)},
		{"/proc/self/gid_map", fmt.Sprintf("%d %d 1", gid, gid)},
	}
	for _, w := range writes {
		if err := os.WriteFile(w.file, []byte(w.line), 0); err != nil {
			return fmt.Errorf("mapping the daemon's user and group in the kernel's user namespace: %w", err)
		}
	}
	return nil
}

// namespaceInit reports whether this process is the first of its PID
// namespace.
func namespaceInit() bool { return os.Getpid() == 1 }

// ownProcVariable, in the helper's environment, tells the namespace's
// second process that it runs in a mount namespace of its own, where it
// mounts its own /proc, its TMPDIR and the masks over the hidden paths
// before it confines itself (see setUpMounts).
const ownProcVariable = "ALBEDO_SANDBOX_OWN_PROC"
