package albedo_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestTheDomainNeverTouchesTheFileSystem keeps the packages under albedo/
// from importing what reaches the disk or other processes: workspace
// checks go through the Workspaces port.
func TestTheDomainNeverTouchesTheFileSystem(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	banned := []string{"os", "os/exec", "io/fs", "io/ioutil", "syscall", "net", "net/http"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			if slices.Contains(banned, imp) {
				t.Errorf("%s imports %s: the domain must reach the disk through its ports", pkg, imp)
			}
		}
	}
}
