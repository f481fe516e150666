//go:build unix

package pykernel

import "syscall"

// groupAttr puts a kernel into a process group of its own, so that it and
// everything it starts can be killed together, and (on Linux) has it
// signalled the moment the daemon dies.
func groupAttr() *syscall.SysProcAttr {
	return withDeathSignal(&syscall.SysProcAttr{Setpgid: true})
}

// killGroup kills the process group led by pid.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// yieldProcessor gives the process pid the lowest scheduling priority;
// what it starts afterwards inherits it. A failure leaves it as it was.
func yieldProcessor(pid int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, 19)
}
