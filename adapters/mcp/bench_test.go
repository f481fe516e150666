package mcp

import (
	"context"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// BenchmarkStdioCallRoundTrip measures one call of a stdio server's tool
// through the Manager, the server (this test binary) already running:
// the JSON-RPC round trip over its pipes and the Manager's bookkeeping.
func BenchmarkStdioCallRoundTrip(b *testing.B) {
	cfg := stdioConfig(b, "")
	m := NewManager(ManagerOptions{
		Client: NewClient(Options{Lookup: lookup(map[string]string{"TEST_GREETING": "hello"})}),
		Config: func(string) Config { return Config{Servers: map[string]ServerConfig{cfg.Name: cfg}} },
		Idle:   -1,
	})
	defer m.Close()
	ws := b.TempDir()
	ref := albedo.ServerToolRef{Server: cfg.Name, Tool: "echo"}
	if _, err := m.Call(context.Background(), ws, ref, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Call(context.Background(), ws, ref, []byte(`{"text":"hi"}`)); err != nil {
			b.Fatal(err)
		}
	}
}
