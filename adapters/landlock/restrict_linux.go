//go:build linux

package landlock

import (
	"fmt"

	golandlock "github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
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

// restrict confines this process, and what it execs, as s says.
func restrict(s Spec) error {
	if s.ABI <= 0 {
		return nil
	}
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
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("applying Landlock (ABI %d): %w", abi, err)
	}
	return nil
}
