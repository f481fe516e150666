//go:build linux

package landlock

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// dropCapabilities leaves the calling OS thread, and the program it execs
// next, with no capability in the bounding, ambient, effective, permitted
// or inheritable sets. With no_new_privs set before (setuid bits and file
// capabilities grant nothing), a kernel started by root is then root by
// its user id only: it cannot bypass file modes, read other processes'
// memory or environment, open raw or packet sockets, change the network,
// make devices or give files away. Each of these calls acts on the
// calling thread alone, so it must be the one that execs.
func dropCapabilities() error {
	if err := clearAmbient(); err != nil {
		return err
	}
	if err := dropBoundingSet(); err != nil {
		return err
	}
	header := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData // version 3 takes two words of each set
	if err := unix.Capset(&header, &none[0]); err != nil {
		return fmt.Errorf("dropping the capabilities: %w", err)
	}
	return nil
}

// clearAmbient empties the ambient capability set of the calling thread,
// which an exec would otherwise keep.
func clearAmbient() error {
	// EINVAL: a kernel older than ambient capabilities (4.3), which has none.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	return nil
}

// dropBoundingSet empties the capability bounding set, so that no exec
// can grant a capability again, even as root. Without CAP_SETPCAP (any
// user but root) the set cannot change; no_new_privs and an empty
// permitted set already keep exec from granting anything then.
func dropBoundingSet() error {
	for capability := 0; ; capability++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(capability), 0, 0, 0)
		switch {
		case errors.Is(err, unix.EINVAL): // past the kernel's last capability
			return nil
		case errors.Is(err, unix.EPERM):
			return nil
		case err != nil:
			return fmt.Errorf("dropping capability %d from the bounding set: %w", capability, err)
		}
	}
}

// ProtectDaemon makes this process non-dumpable, so that other processes
// of its user (a kernel where Landlock is missing or off, or anything else
// the user runs) cannot read its environment (the provider keys it was
// started with), memory or open files under /proc, nor attach a debugger;
// only root with CAP_SYS_PTRACE still can, and kernels have no
// capability. The process's own /proc stays readable to itself, and what
// it execs is dumpable again.
func ProtectDaemon() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("making the daemon non-dumpable: %w", err)
	}
	return nil
}
