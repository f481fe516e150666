//go:build linux

package landlock

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// reservedPIDs is how many of the lowest pids Linux skips once a PID
// namespace's pids wrap around (RESERVED_PIDS).
const reservedPIDs = 300

// applyLimits bounds this process, and so the kernel it execs and all it
// starts, as s says. Processes: RLIMIT_NPROC, which Linux counts per user
// in each user namespace, so an unprivileged daemon's kernel (in a user
// namespace of its own) counts its own processes and threads alone; Linux
// never applies it to root, so a root daemon's kernel gets its PID
// namespace's pid_max lowered instead (Linux 6.14), which bounds it to
// between Processes and Processes+300 at once. Memory: RLIMIT_DATA, each
// process's heap and private writable mappings (address space reserved
// but not yet writable does not count, so runtimes that reserve much,
// such as V8 or the JVM, still start). Past a bound, fork fails with
// EAGAIN and an allocation with ENOMEM: BlockingIOError and MemoryError in
// Python.
//
// pid_max is lowered only in a PID namespace of the kernel's own
// (ownNamespace) on a Linux that keeps one per namespace: elsewhere it is
// the machine's.
func applyLimits(s Spec, ownNamespace bool) error {
	if s.MemoryMiB > 0 {
		size := uint64(s.MemoryMiB) << 20
		if err := unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: size, Max: size}); err != nil {
			return fmt.Errorf("limiting the kernel's memory to %d MiB: %w", s.MemoryMiB, err)
		}
	}
	if s.Processes > 0 {
		n := uint64(s.Processes)
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: n, Max: n}); err != nil {
			return fmt.Errorf("limiting the kernel's processes to %d: %w", s.Processes, err)
		}
		if os.Geteuid() == 0 && ownNamespace && pidMaxPerNamespace() {
			_ = lowerPIDMax(s.Processes + reservedPIDs) // best effort
		}
	}
	return nil
}

// lowerPIDMax sets the pid_max of this process's PID namespace to max,
// unless it is lower already.
func lowerPIDMax(max int) error {
	const file = "/proc/sys/kernel/pid_max"
	current, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if n, err := strconv.Atoi(string(current[:len(current)-1])); err == nil && n <= max {
		return nil
	}
	return os.WriteFile(file, []byte(strconv.Itoa(max)), 0)
}

// pidMaxPerNamespace reports whether this Linux keeps a pid_max per PID
// namespace (6.14 and later); before, pid_max is the machine's.
func pidMaxPerNamespace() bool {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 6 || major == 6 && minor >= 14
}
