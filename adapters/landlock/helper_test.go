package landlock

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary play the helper, as albedo's binary does:
// with LANDLOCK_TEST_HELPER set, or HelperCommand as its first argument,
// it runs HelperMain on the rest.
func TestMain(m *testing.M) {
	if os.Getenv("LANDLOCK_TEST_HELPER") == "1" {
		os.Exit(HelperMain(os.Args[1:], os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		os.Exit(HelperMain(os.Args[2:], os.Stderr))
	}
	os.Exit(m.Run())
}

// runConfined runs a shell command through the helper with spec, and
// returns its combined output and error.
func runConfined(t *testing.T, spec Spec, dir, script string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], spec.encode(), "--", "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LANDLOCK_TEST_HELPER=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func TestHelperConfinesWhatItExecs(t *testing.T) {
	abi := KernelABI()
	if abi < 1 {
		t.Skip("this kernel has no Landlock")
	}
	root := tree(t, "ws/", "tmp/", "home/.ssh/id_test", "albedo/config.json")
	at := func(rel string) string { return filepath.Join(root, rel) }
	spec := Spec{ABI: abi, Network: true, Writable: []string{at("ws"), at("tmp")}, Hidden: []string{at("albedo"), at("home/.ssh")}}
	tests := []struct {
		name   string
		script string
		works  bool
	}{
		{"writes in the workspace", "echo x > " + at("ws/a"), true},
		{"writes in its temporary folder", "echo x > " + at("tmp/a"), true},
		{"writes to /dev/null", "echo x > /dev/null", true},
		{"reads the system", "cat /etc/hostname", true},
		{"lists the workspace", "ls " + at("ws"), true},
		{"cannot write beside the workspace", "echo x > " + at("outside"), false},
		{"cannot write in the user's home", "echo x > " + at("home/outside"), false},
		{"cannot read albedo's home", "cat " + at("albedo/config.json"), false},
		{"cannot read a hidden key", "cat " + at("home/.ssh/id_test"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runConfined(t, spec, at("ws"), tt.script)
			if tt.works && err != nil {
				t.Errorf("%s failed: %v: %s", tt.script, err, out)
			}
			if !tt.works && (err == nil || !strings.Contains(out, "ermission denied")) {
				t.Errorf("%s was not refused: %v: %s", tt.script, err, out)
			}
		})
	}
	for _, name := range []string{"outside", "home/outside"} {
		if _, err := os.Stat(at(name)); err == nil {
			t.Errorf("%s appeared", name)
		}
	}
}

func TestHelperWithABIZeroRestrictsNothing(t *testing.T) {
	root := tree(t, "ws/")
	out, err := runConfined(t, Spec{ABI: 0}, filepath.Join(root, "ws"), "echo x > "+filepath.Join(root, "outside"))
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

func TestHelperRefusesABadCommandLine(t *testing.T) {
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"no separator", []string{"{}", "sh"}, "usage"},
		{"a spec that is no JSON", []string{"nope", "--", "sh"}, "spec"},
		{"a program that does not exist", []string{"{}", "--", "/no/such/program"}, "/no/such/program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := HelperMain(tt.args, &stderr); code != 126 || !strings.Contains(stderr.String(), tt.says) {
				t.Errorf("HelperMain(%q) = %d, %q; want 126 saying %q", tt.args, code, stderr.String(), tt.says)
			}
		})
	}
}
