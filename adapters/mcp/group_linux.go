package mcp

import "syscall"

// groupAttr puts a stdio server into a process group of its own, so that
// it and everything it starts are killed together, and has Linux kill it
// the moment the daemon dies.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
