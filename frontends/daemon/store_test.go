package daemon

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/home"
)

// TestRunRefusesAnUnreachableStore checks that a daemon whose PostgreSQL
// store cannot be reached at start stops with a store-unavailable error
// that names the server, and that neither the error nor the log shows the
// URL's password.
func TestRunRefusesAnUnreachableStore(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	err = Run(t.Context(), Options{Home: dir, StoreURL: "postgres://albedo:s3cret@" + addr + "/albedo?sslmode=disable"})
	if albedo.ErrorCode(err) != albedo.EStoreUnavailable || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Run = %v; want a %s error naming %s", err, albedo.EStoreUnavailable, addr)
	}
	log, _ := os.ReadFile(filepath.Join(dir, home.LogFile))
	if strings.Contains(err.Error(), "s3cret") || strings.Contains(string(log), "s3cret") {
		t.Errorf("the password shows in the error %q or the log %q", err, log)
	}
	if _, statErr := os.Stat(filepath.Join(dir, home.ConnectionFile)); statErr == nil {
		t.Errorf("a daemon without its store published %s", home.ConnectionFile)
	}
}

// TestHealthNamesTheStore checks that /health names the kind of store the
// daemon was given, and the daemon's node where it shares its store, and
// leaves each field out when it was given none.
func TestHealthNamesTheStore(t *testing.T) {
	for _, tc := range []struct{ kind, node string }{{"postgresql", "build-box"}, {"postgresql", ""}, {"sqlite", ""}, {"", ""}} {
		svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: memstore.New(),
			Provider: fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply { return fakes.Text("hi") }),
			Kernel:   fakes.NewKernel(), Config: fakes.NewConfig("p", albedo.ProviderConfig{Name: "p"})})
		srv := serveAPI(APIOptions{Service: svc, Token: testToken, Store: tc.kind, Node: tc.node})
		code, body := call(t, srv, http.MethodGet, "/health", "", map[string]string{"Authorization": "Bearer " + testToken})
		srv.Close()
		got, present := body["store"]
		if code != http.StatusOK || (tc.kind == "" && present) || (tc.kind != "" && got != tc.kind) {
			t.Errorf("store %q: /health = %d %v; want its store named %q", tc.kind, code, body, tc.kind)
		}
		node, present := body["node"]
		if (tc.node == "" && present) || (tc.node != "" && node != tc.node) {
			t.Errorf("node %q: /health = %v; want the node named %q", tc.node, body, tc.node)
		}
		svc.Close(t.Context())
	}
}
