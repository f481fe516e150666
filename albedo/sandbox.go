package albedo

import (
	"context"
	"fmt"
	"strings"
)

// SandboxMode says where the model's Python may write.
type SandboxMode string

// Sandbox modes.
const (
	// SandboxWorkspaceWrite lets the kernel write in the workspace, its
	// temporary folder and the writable folders only.
	SandboxWorkspaceWrite SandboxMode = "workspace-write"
	// SandboxReadOnly lets the kernel write in its temporary folder only.
	SandboxReadOnly SandboxMode = "read-only"
	// SandboxOff confines nothing.
	SandboxOff SandboxMode = "off"
)

// SandboxPolicy is how the model's Python, and every process it starts,
// is confined. The composition root reads it from the home's settings.
type SandboxPolicy struct {
	Mode SandboxMode
	// Network false refuses network connections and listening.
	Network bool
	// Writable are further folders the kernel may write (a package cache,
	// say), absolute or starting with "~/".
	Writable []string
	// Hidden are further paths the kernel may not read, beyond albedo's
	// home and DefaultHiddenPaths.
	Hidden []string
	// Required refuses to run cells when the machine cannot enforce all of
	// the policy.
	Required bool
	// Limits bound what the kernel's processes may take.
	Limits SandboxLimits
}

// SandboxLimits bound what a sandboxed kernel's processes may take, so
// that a runaway cell ends in an error of its own instead of starving the
// machine, the daemon or the other sessions. Zero means no bound.
type SandboxLimits struct {
	// Processes bounds the processes and threads the kernel runs at once,
	// itself included.
	Processes int
	// MemoryMiB bounds each process's data memory (its heap and private
	// writable mappings), in MiB.
	MemoryMiB int
	// TempMiB bounds what the kernel's TMPDIR holds, in MiB.
	TempMiB int
}

// DefaultSandboxLimits are the limits of a policy whose settings name
// none.
func DefaultSandboxLimits() SandboxLimits {
	return SandboxLimits{Processes: 1024, MemoryMiB: 8192, TempMiB: 1024}
}

// DefaultHiddenPaths are the credentials a sandboxed kernel may not read
// unless the policy is off, beside albedo's home: the default albedo home
// (another albedo's keys when ALBEDO_HOME points elsewhere), SSH and GPG
// keys, cloud and cluster credentials, and the token files of the usual
// package registries and forges.
var DefaultHiddenPaths = []string{
	"~/.albedo", "~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube",
	"~/.docker/config.json", "~/.netrc", "~/.git-credentials", "~/.config/git/credentials",
	"~/.config/gh", "~/.config/hub", "~/.npmrc", "~/.yarnrc.yml", "~/.pypirc",
	"~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials",
	"~/.terraform.d/credentials.tfrc.json", "~/.vault-token", "~/.password-store", "~/.local/share/keyrings",
}

// DefaultSandboxPolicy is the policy of a home whose settings say nothing
// of the sandbox.
func DefaultSandboxPolicy() SandboxPolicy {
	return SandboxPolicy{Mode: SandboxWorkspaceWrite, Network: true, Limits: DefaultSandboxLimits()}
}

// SandboxStatus is what a kernel runs under: the policy, the folders it
// came to, and what of it this machine enforces.
type SandboxStatus struct {
	Policy SandboxPolicy
	// Problems are the invalid settings that were ignored.
	Problems []string
	// Writable are the folders the kernel may write, resolved: the
	// workspace (unless read-only), its temporary folder and the policy's
	// writable folders. Empty before a kernel starts.
	Writable []string
	// Hidden are the paths it may not read, resolved.
	Hidden []string
	// Enforced and NotEnforced name the protections the policy asks for
	// that are and are not applied (see the landlock adapter for the
	// names); both empty when the mode is off.
	Enforced, NotEnforced []string
	// Running is true when a kernel of the session runs under this status
	// now; false when it is what the next kernel would get.
	Running bool
}

// Sandbox tells how the model's Python is confined. Kernels that confine
// their cells come with one.
type Sandbox interface {
	// Status says what a kernel started now would run under.
	Status(ctx context.Context) SandboxStatus
	// Session says what the session's kernel runs under: its last start's
	// status, or false when none started since albedo did.
	Session(ctx context.Context, sessionID string) (SandboxStatus, bool)
}

// SandboxInstruction is the line of the instructions that tells the model
// the policy its Python runs under.
func SandboxInstruction(st SandboxStatus) string {
	p := st.Policy
	if p.Mode == SandboxOff {
		return "Sandbox: off; your Python runs with the user's full rights."
	}
	where := "the workspace, $TMPDIR"
	if p.Mode == SandboxReadOnly {
		where = "$TMPDIR"
	}
	if len(p.Writable) > 0 {
		where += ", " + strings.Join(p.Writable, ", ")
	}
	network := "the network is open"
	if !p.Network {
		network = "network connections are refused"
	}
	line := fmt.Sprintf("Sandbox (%s): your Python and everything it starts may write only in %s; albedo's home and credentials (~/.ssh, ~/.aws, ...) cannot be read; %s; a refused access raises PermissionError.", p.Mode, where, network)
	if len(st.NotEnforced) > 0 {
		line += " Not enforced on this machine: " + strings.Join(st.NotEnforced, ", ") + "."
	}
	return line
}
