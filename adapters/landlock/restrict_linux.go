//go:build linux

package landlock

import (
	"fmt"
	"runtime"
	"syscall"

	golandlock "github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// presets are go-landlock's configurations by ABI, from 1: each handles
// everything its ABI can restrict.
var presets = []golandlock.Config{
	golandlock.V1, golandlock.V2, golandlock.V3, golandlock.V4, golandlock.V5, golandlock.V6,
	golandlock.V7, golandlock.V8, golandlock.V9, golandlock.V10, golandlock.V11,
}

// KernelABI returns the Landlock ABI of the running kernel, 0 when it has
// none (or has it disabled).
func KernelABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// execConfined confines this process as s says, sets no_new_privs, drops
// every capability (dropCapabilities, after the rules are built, which
// may need root's rights to open the folders they name) and execs program
// in its place, which keeps all three; the privileges go whatever the
// ABI, even 0. The ruleset is applied to the one OS
// thread that then calls execve, as go-landlock's NewRulesetFD documents:
// the exec replaces every other thread anyway, and this spares stopping
// them all to restrict each.
func execConfined(s Spec, program string, argv, env []string) error {
	if s.Off {
		return execPlain(program, argv, env)
	}
	runtime.LockOSThread() // never unlocked: this thread execs or the helper exits
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if s.ABI > 0 {
		fd, flags, err := rulesetOf(s)
		if err != nil {
			return err
		}
		if fd >= 0 {
			defer unix.Close(fd)
			if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
				return fmt.Errorf("applying Landlock (ABI %d): %w", min(s.ABI, len(presets)), err)
			}
		}
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := syscall.Exec(program, argv, env); err != nil {
		return fmt.Errorf("running %s: %w", program, err)
	}
	return nil
}

// rulesetOf builds the Landlock ruleset of a spec: -1 when there is
// nothing to restrict (best effort on a kernel without Landlock).
func rulesetOf(s Spec) (int, uint32, error) {
	abi := min(s.ABI, len(presets))
	cfg := presets[abi-1]
	if s.Network {
		cfg.HandledAccessNet = 0
		cfg.HandledAccessFS &^= ll.AccessFSResolveUnix
	}
	if !s.Required {
		cfg = cfg.BestEffort()
	}
	var rules []golandlock.Rule
	for _, g := range s.grants() {
		var r golandlock.FSRule
		switch {
		case g.Write && g.Dir:
			r = golandlock.RWDirs(g.Path)
			if abi >= 2 {
				r = r.WithRefer()
			}
		case g.Write:
			r = golandlock.RWFiles(g.Path)
		case g.Dir:
			r = golandlock.RODirs(g.Path)
		default:
			r = golandlock.ROFiles(g.Path)
		}
		rules = append(rules, r.IgnoreIfMissing())
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("building the Landlock ruleset (ABI %d): %w", abi, err)
	}
	return fd, flags, nil
}

// execPlain execs program as this process is (mode off), but for the
// ambient capabilities an unprivileged daemon lent the helper over its
// user namespace (see mapOwnIDs).
func execPlain(program string, argv, env []string) error {
	if err := clearAmbient(); err != nil {
		return err
	}
	if err := syscall.Exec(program, argv, env); err != nil {
		return fmt.Errorf("running %s: %w", program, err)
	}
	return nil
}
