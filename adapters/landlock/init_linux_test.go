package landlock

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTheNamespacesFirstProcessEndsWhatTheKernelLeft starts the helper as
// the first process of a PID namespace, as the daemon does, with a kernel
// that double-forks a setsid process and leaves a nohup one, then exits:
// the helper exits with the kernel's status and nothing the kernel started
// is left. As root both kinds of namespace are tried; otherwise the one
// with a user namespace (skipped where those are not allowed).
func TestTheNamespacesFirstProcessEndsWhatTheKernelLeft(t *testing.T) {
	kinds := []struct {
		name string
		attr func() *syscall.SysProcAttr
		root bool
	}{
		{"a PID namespace", func() *syscall.SysProcAttr {
			return &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWPID}
		}, true},
		{"a PID namespace in a user namespace", func() *syscall.SysProcAttr {
			return &syscall.SysProcAttr{
				Setpgid:     true,
				Cloneflags:  syscall.CLONE_NEWPID | syscall.CLONE_NEWUSER,
				UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}},
				GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}},
			}
		}, false},
	}
	for i, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			if kind.root && os.Geteuid() != 0 {
				t.Skip("only root makes a PID namespace alone")
			}
			marker := fmt.Sprintf("4000.%d%d", os.Getpid(), i)
			dir := t.TempDir()
			script := fmt.Sprintf(`setsid sh -c 'sleep %[1]s1 >/dev/null 2>&1 &'
nohup sleep %[1]s2 >/dev/null 2>&1 &
until pgrep -f "^sleep %[1]s1" >/dev/null && pgrep -f "^sleep %[1]s2" >/dev/null; do :; done
exit 3`, marker)
			cmd := exec.Command(os.Args[0], Spec{Network: true}.encode(), "--", "sh", "-c", script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "LANDLOCK_TEST_HELPER=1")
			cmd.SysProcAttr = kind.attr()
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Start()
			if err != nil && !kind.root {
				t.Skipf("no user namespace here: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Fatalf("helper ended with %v, want exit status 3; output:\n%s", err, out.String())
			}
			if left := waitNoneMarked(marker, 10*time.Second); len(left) > 0 {
				for _, pid := range left {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
				t.Errorf("processes the kernel started outlived it: %v", left)
			}
		})
	}
}

// waitNoneMarked waits until no sleep process has an argument starting
// with marker, and returns those left when the time is up.
func waitNoneMarked(marker string, within time.Duration) []int {
	deadline := time.Now().Add(within)
	for {
		var left []int
		paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err == nil && bytes.HasPrefix(data, []byte("sleep\x00"+marker)) {
				var pid int
				fmt.Sscanf(path, "/proc/%d/cmdline", &pid)
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}
