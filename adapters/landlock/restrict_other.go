//go:build !linux

package landlock

import "errors"

// KernelABI returns 0: Landlock is Linux's.
func KernelABI() int { return 0 }

// restrict refuses any restriction: there is no Landlock here.
func restrict(s Spec) error {
	if s.ABI <= 0 {
		return nil
	}
	return errors.New("landlock is only available on Linux")
}
