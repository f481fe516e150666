//go:build linux

package landlock

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestHelperLeavesTheKernelNoCapability(t *testing.T) {
	root := tree(t, "ws/")
	for _, abi := range []int{0, KernelABI()} {
		out, err := runConfined(t, Spec{ABI: abi, Network: true, Writable: []string{filepath.Join(root, "ws")}}, filepath.Join(root, "ws"), "grep -E '^(Cap|NoNewPrivs)' /proc/self/status")
		if err != nil {
			t.Fatalf("ABI %d: %v: %s", abi, err, out)
		}
		want := map[string]string{"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1"}
		if os.Geteuid() == 0 {
			want["CapBnd"] = "0000000000000000" // only root may empty it
		}
		for name, value := range want {
			if !strings.Contains(out, name+":\t"+value+"\n") {
				t.Errorf("ABI %d: %s is not %s:\n%s", abi, name, value, out)
			}
		}
	}
}

// TestHelperLeavesRootNoPowerOverOthers runs as root only: a kernel started
// by root keeps user id 0 but none of root's powers.
func TestHelperLeavesRootNoPowerOverOthers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("what root may do without capabilities needs root")
	}
	abi := KernelABI()
	root := tree(t, "ws/mine")
	ws := filepath.Join(root, "ws")
	secret := exec.Command("sleep", "60")
	secret.Env = append(os.Environ(), "ALBEDO_TEST_SECRET=s3cret")
	if err := secret.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = secret.Process.Kill(); _ = secret.Wait() })
	pid := strconv.Itoa(secret.Process.Pid)
	tests := []struct {
		name, script string
		landlock     bool // refused only where Landlock scopes other processes
	}{
		{"cannot give a file away", "chown 12345:12345 mine", false},
		{"cannot make a device", "mknod null c 1 3", false},
		{"cannot open a packet socket", "python3 -c 'import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)'", false},
		{"cannot open a raw socket", "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)'", false},
		{"cannot read another root process's environment", "tr '\\0' '\\n' < /proc/" + pid + "/environ | grep -q s3cret", true},
		{"cannot read another root process's memory", "head -c1 /proc/" + pid + "/mem", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.landlock && abi < 1 {
				t.Skip("this kernel has no Landlock")
			}
			out, err := runConfined(t, Spec{ABI: abi, Network: true, Writable: []string{ws}}, ws, tt.script)
			if err == nil {
				t.Errorf("%s was not refused: %s", tt.script, out)
			}
		})
	}
	var st unix.Stat_t
	if err := unix.Stat(filepath.Join(ws, "mine"), &st); err != nil || st.Uid != 0 {
		t.Errorf("mine: uid %d, %v", st.Uid, err)
	}
	if _, err := os.Lstat(filepath.Join(ws, "null")); err == nil {
		t.Error("a device appeared in the workspace")
	}
}

func TestProtectDaemonHidesItsEnvironmentFromKernelsAndItsUser(t *testing.T) {
	// This test process plays the daemon; a program run through the helper
	// without Landlock (ABI 0) plays a kernel on a machine without it.
	if os.Geteuid() == 0 {
		t.Skip("as root, a kernel without capabilities cannot read a process holding them anyway, protected or not")
	}
	t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0) })
	environ := "/proc/" + strconv.Itoa(os.Getpid()) + "/environ"
	for _, tt := range []struct {
		name      string
		protected bool
	}{{"an ordinary process is readable", false}, {"a protected one is not", true}} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.protected {
				if err := ProtectDaemon(); err != nil {
					t.Fatal(err)
				}
			}
			out, err := runConfined(t, Spec{ABI: 0}, t.TempDir(), "cat "+environ+" >/dev/null")
			if read := err == nil; read == tt.protected {
				t.Errorf("read %s: %v (%s), protected %v", environ, err, out, tt.protected)
			}
		})
	}
}
