//go:build unix && !linux

package pykernel

import "syscall"

// interruptMain sends SIGINT to process pid; the kernel blocks the signal in
// its other threads, so the main thread takes it.
func interruptMain(pid int) error {
	return syscall.Kill(pid, syscall.SIGINT)
}
