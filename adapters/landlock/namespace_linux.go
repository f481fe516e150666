//go:build linux

package landlock

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// NamespaceAttrs returns the ways to start the helper (for a kernel or an
// MCP server) in a PID namespace of its own, best first, each a variant
// of base. As root: a new PID namespace alone, then (for a root that
// lacks the right, as in many containers) a new user namespace too,
// mapping root to itself. As any other user: a new user namespace with no
// ids mapped, which needs no privilege where unprivileged user namespaces
// are allowed; the daemon, not dumpable, may not write its child's maps,
// so the helper maps the user and group to themselves and mounts the
// namespace's /proc with the capabilities over that namespace passed to
// it as ambient ones, and drops them all before the program runs.
func NamespaceAttrs(base *syscall.SysProcAttr) []*syscall.SysProcAttr {
	user := *base
	user.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWUSER
	if os.Geteuid() != 0 {
		user.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETUID, unix.CAP_SETGID}
		return []*syscall.SysProcAttr{&user}
	}
	pid := *base
	pid.Cloneflags = syscall.CLONE_NEWPID
	user.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}
	user.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	user.GidMappingsEnableSetgroups = false
	return []*syscall.SysProcAttr{&pid, &user}
}
