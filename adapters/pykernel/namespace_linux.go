package pykernel

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

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
