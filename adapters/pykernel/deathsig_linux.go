package pykernel

import "syscall"

// deathSignal is the signal Linux sends a kernel the moment the daemon that
// started it dies (PR_SET_PDEATHSIG). The kernel's handler ends the kernel
// and its jobs at once, before the running cell does anything more: a
// reader thread waiting for the end of the control pipe may have to wait
// for the interpreter lock first.
const deathSignal = syscall.SIGHUP

// withDeathSignal asks Linux to send deathSignal to the kernel when the
// daemon dies. It survives the exec of a confining helper.
func withDeathSignal(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	attr.Pdeathsig = deathSignal
	return attr
}
