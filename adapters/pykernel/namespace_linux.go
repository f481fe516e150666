package pykernel

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// namespaceAttrs returns the ways to start a kernel in a PID namespace of
// its own, best first, each a variant of base. As root: a new PID
// namespace alone, then (for a root that lacks the right, as in many
// containers) a new user namespace too, mapping root to itself. As any
// other user: a new user namespace with no ids mapped, which needs no
// privilege where unprivileged user namespaces are allowed; the daemon,
// not dumpable, may not write its child's maps, so the helper maps the
// user and group to themselves and mounts the namespace's /proc with the
// capabilities over that namespace passed to it as ambient ones, and
// drops them all before the kernel runs.
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

// jobOfKernel reports whether pid is a job the kernel kernelPID started
// just now: its child, leading a process group of its own. The daemon
// acts only on such pids, whatever pid a kernel's event names.
func jobOfKernel(kernelPID, pid int) bool {
	if pid <= 0 {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return false
	}
	fields := bytes.Fields(stat[end+1:])
	if len(fields) < 3 {
		return false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	pgrp, err2 := strconv.Atoi(string(fields[2]))
	return err1 == nil && err2 == nil && ppid == kernelPID && pgrp == pid
}

// inNamespace reports whether attr starts a process in a PID namespace of
// its own.
func inNamespace(attr *syscall.SysProcAttr) bool {
	return attr != nil && attr.Cloneflags&syscall.CLONE_NEWPID != 0
}
