//go:build unix && !linux

package mcp

import "syscall"

// groupAttr puts a stdio server into a process group of its own, so that
// it and everything it starts are killed together.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
