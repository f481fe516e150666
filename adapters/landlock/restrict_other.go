//go:build !linux

package landlock

import (
	"errors"
	"fmt"
	"io"
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

// namespaceInit reports false: PID namespaces are Linux's.
func namespaceInit() bool { return false }

// superviseNamespace is never called off Linux.
func superviseNamespace(_ Spec, stderr io.Writer) int {
	fmt.Fprintln(stderr, "albedo sandbox: PID namespaces are only available on Linux")
	return 126
}

// setUpMounts does nothing: mount namespaces are Linux's.
func setUpMounts(Spec) bool { return false }

// applyLimits bounds nothing: the limits are Linux's.
func applyLimits(Spec, bool) error { return nil }
