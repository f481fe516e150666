package landlock

import "github.com/albedo-agent/albedo/albedo"

// protection is one thing a policy may ask Landlock to refuse.
type protection struct {
	name string
	// abi is the first Landlock ABI that enforces it; 0 for never.
	abi int
	// offline marks protections that network false asks for.
	offline bool
}

// protections are listed in the package documentation.
var protections = []protection{
	{name: "filesystem_writes", abi: 1},
	{name: "hidden_reads", abi: 1},
	{name: "file_truncation", abi: 3},
	{name: "tcp", abi: 4, offline: true},
	{name: "device_ioctl", abi: 5},
	{name: "signals", abi: 6},
	{name: "abstract_unix_sockets", abi: 6},
	{name: "unix_sockets", abi: 9, offline: true},
	{name: "udp", abi: 10, offline: true},
	{name: "mptcp", abi: 0, offline: true},
}

// assess splits the protections a policy asks for into those a Landlock
// of ABI abi enforces and those it does not; missing counts those of the
// second kind that some ABI would enforce (what "required" demands).
func assess(p albedo.SandboxPolicy, abi int) (enforced, notEnforced []string, missing int) {
	enforced, notEnforced = []string{}, []string{}
	if p.Mode == albedo.SandboxOff {
		return enforced, notEnforced, 0
	}
	for _, pr := range protections {
		if pr.offline && p.Network {
			continue
		}
		if pr.abi > 0 && abi >= pr.abi {
			enforced = append(enforced, pr.name)
			continue
		}
		notEnforced = append(notEnforced, pr.name)
		if pr.abi > 0 {
			missing++
		}
	}
	return enforced, notEnforced, missing
}
