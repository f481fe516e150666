package client

import (
	"os/exec"
	"strings"
	"testing"
)

// goList runs go list -deps with a format over packages, one line each.
func goList(t *testing.T, format string, pkgs ...string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, append([]string{"list", "-deps", "-f", format}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", pkgs, err)
	}
	return strings.Fields(string(out))
}

const (
	wirePkg   = "github.com/albedo-agent/albedo/albedo/wire"
	clientPkg = "github.com/albedo-agent/albedo/frontends/client"
	daemonPkg = "github.com/albedo-agent/albedo/frontends/daemon"
)

// TestTalkingToADaemonLinksNoStore keeps a program that imports only the
// API's contract and this client free of the store and its database: it
// links neither SQLite nor bun, nor any adapter or the domain.
func TestTalkingToADaemonLinksNoStore(t *testing.T) {
	for _, dep := range goList(t, "{{.ImportPath}}", wirePkg, clientPkg) {
		for _, banned := range []string{"modernc.org/sqlite", "github.com/uptrace/bun", "/adapters/", "github.com/albedo-agent/albedo/albedo\n", "gin-gonic"} {
			if strings.Contains(dep+"\n", banned) {
				t.Errorf("a program using only wire and client links %s", dep)
			}
		}
	}
}

// TestWireImportsOnlyTheStandardLibrary keeps the API's contract free of
// any dependency beyond the standard library.
func TestWireImportsOnlyTheStandardLibrary(t *testing.T) {
	for _, dep := range goList(t, "{{if not .Standard}}{{.ImportPath}}{{end}}", wirePkg) {
		if dep != wirePkg {
			t.Errorf("wire depends on %s", dep)
		}
	}
}

// TestDaemonDoesNotDependOnEmbedded keeps the server assembling itself
// from the composition root, not from the embedding API.
func TestDaemonDoesNotDependOnEmbedded(t *testing.T) {
	for _, dep := range goList(t, "{{.ImportPath}}", daemonPkg) {
		if strings.HasSuffix(dep, "/frontends/embedded") {
			t.Errorf("the daemon depends on %s", dep)
		}
	}
}
