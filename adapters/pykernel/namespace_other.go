//go:build !linux

package pykernel

import "syscall"

// jobOfKernel reports false: without /proc the daemon cannot tell a job of
// the kernel from any other process, so it leaves the jobs to the kernel,
// which kills them when its daemon is gone.
func jobOfKernel(kernelPID, pid int) bool { return false }

// inNamespace reports false: no kernel runs in a PID namespace here.
func inNamespace(attr *syscall.SysProcAttr) bool { return false }
