//go:build !unix

package pykernel

import (
	"errors"
	"os"
	"syscall"
)

// groupAttr has nothing to set where process groups do not exist; starting
// a kernel fails there anyway, for want of inherited pipes.
func groupAttr() *syscall.SysProcAttr { return nil }

// killGroup kills process pid.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// interruptMain cannot interrupt a process on this system.
func interruptMain(pid int) error {
	return errors.New("interrupting a process is not supported on this system")
}

// yieldProcessor does nothing where priorities are not Unix's.
func yieldProcessor(int) {}
