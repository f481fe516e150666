package pykernel

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// namespaceAttrs returns the ways to start a kernel in a PID namespace of
// its own, best first, each a variant of base: as root a new PID namespace
// alone; otherwise (and for a root that lacks the right, as in many
// containers) a new user namespace too, mapping the user and group to
// themselves, which needs no privilege where unprivileged user namespaces
// are allowed.
func namespaceAttrs(base *syscall.SysProcAttr) []*syscall.SysProcAttr {
	var out []*syscall.SysProcAttr
	if os.Geteuid() == 0 {
		pid := *base
		pid.Cloneflags = syscall.CLONE_NEWPID
		out = append(out, &pid)
	}
	user := *base
	user.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWUSER
	user.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
	user.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	user.GidMappingsEnableSetgroups = false
	return append(out, &user)
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
