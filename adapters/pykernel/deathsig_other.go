//go:build unix && !linux

package pykernel

import "syscall"

// withDeathSignal leaves attr as it is: only Linux signals a process when
// its parent dies, and elsewhere the kernel learns it from the end of its
// control pipe.
func withDeathSignal(attr *syscall.SysProcAttr) *syscall.SysProcAttr { return attr }
