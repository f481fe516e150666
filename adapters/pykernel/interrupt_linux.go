package pykernel

import "syscall"

// interruptMain sends SIGINT to the main thread of process pid, the only
// thread in which Python raises KeyboardInterrupt and whose blocking calls
// the signal must cut short.
func interruptMain(pid int) error {
	return syscall.Tgkill(pid, pid, syscall.SIGINT)
}
