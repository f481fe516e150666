package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/frontends/home"
)

// TestRunFailsWhenItCannotPublishItsConnection checks that a daemon whose
// daemon.json cannot be written stops with an error, so that the client
// that started it reports why rather than waiting for it.
func TestRunFailsWhenItCannotPublishItsConnection(t *testing.T) {
	dir := t.TempDir()
	// A folder where daemon.json belongs: the rename that publishes it fails.
	if err := os.MkdirAll(filepath.Join(dir, home.ConnectionFile, "in-the-way"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := Run(t.Context(), Options{Home: dir})
	if err == nil || !strings.Contains(err.Error(), "publish the connection") {
		t.Fatalf("Run = %v, want an error about publishing the connection", err)
	}
}
