//go:build !linux

package landlock

import (
	"errors"
	"fmt"
	"syscall"
)

// KernelABI returns 0: Landlock is Linux's.
func KernelABI() int { return 0 }

// execConfined execs program unconfined when s asks for no Landlock, and
// refuses otherwise: there is none here.
func execConfined(s Spec, program string, argv, env []string) error {
	if s.ABI > 0 {
		return errors.New("landlock is only available on Linux")
	}
	if err := syscall.Exec(program, argv, env); err != nil {
		return fmt.Errorf("running %s: %w", program, err)
	}
	return nil
}

// ProtectDaemon does nothing: other systems keep a process's environment
// from other users' reach in their own ways.
func ProtectDaemon() error { return nil }
