package mcp

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// namespaceAttrs returns the ways to start a server's sandbox helper in a
// PID namespace of its own, best first, each a variant of base, as the
// Python kernel's are started: as root a new PID namespace alone, then
// with a user namespace mapping root to itself; as any other user a new
// user namespace with no ids mapped, the helper mapping the user and
// group itself with the capabilities passed to it as ambient ones, which
// it drops before the server runs.
func namespaceAttrs(base *syscall.SysProcAttr) []*syscall.SysProcAttr {
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
