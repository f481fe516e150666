package landlock

import (
	"slices"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestAssessSaysWhatAnABIEnforces(t *testing.T) {
	online := albedo.DefaultSandboxPolicy()
	offline := albedo.SandboxPolicy{Mode: albedo.SandboxWorkspaceWrite}
	tests := []struct {
		name        string
		policy      albedo.SandboxPolicy
		abi         int
		enforced    []string
		notEnforced []string
		missing     int
	}{
		{
			name: "ABI 7 online enforces all", policy: online, abi: 7,
			enforced:    []string{"filesystem_writes", "hidden_reads", "file_truncation", "device_ioctl", "signals", "abstract_unix_sockets"},
			notEnforced: []string{},
		},
		{
			name: "ABI 7 offline lacks unix sockets and udp; mptcp never", policy: offline, abi: 7,
			enforced:    []string{"filesystem_writes", "hidden_reads", "file_truncation", "tcp", "device_ioctl", "signals", "abstract_unix_sockets"},
			notEnforced: []string{"unix_sockets", "udp", "mptcp"}, missing: 2,
		},
		{
			name: "ABI 11 offline lacks only mptcp", policy: offline, abi: 11,
			enforced:    []string{"filesystem_writes", "hidden_reads", "file_truncation", "tcp", "device_ioctl", "signals", "abstract_unix_sockets", "unix_sockets", "udp"},
			notEnforced: []string{"mptcp"}, missing: 0,
		},
		{
			name: "no Landlock enforces nothing", policy: online, abi: 0,
			enforced:    []string{},
			notEnforced: []string{"filesystem_writes", "hidden_reads", "file_truncation", "device_ioctl", "signals", "abstract_unix_sockets"}, missing: 6,
		},
		{
			name: "ABI 1", policy: online, abi: 1,
			enforced:    []string{"filesystem_writes", "hidden_reads"},
			notEnforced: []string{"file_truncation", "device_ioctl", "signals", "abstract_unix_sockets"}, missing: 4,
		},
		{
			name: "off asks for nothing", policy: albedo.SandboxPolicy{Mode: albedo.SandboxOff}, abi: 0,
			enforced: []string{}, notEnforced: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enforced, notEnforced, missing := assess(tt.policy, tt.abi)
			if !slices.Equal(enforced, tt.enforced) || !slices.Equal(notEnforced, tt.notEnforced) || missing != tt.missing {
				t.Errorf("assess = %q, %q, %d; want %q, %q, %d", enforced, notEnforced, missing, tt.enforced, tt.notEnforced, tt.missing)
			}
		})
	}
}
