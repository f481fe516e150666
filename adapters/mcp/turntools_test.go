package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// gatedManager runs the fake servers "gated", whose first listing waits on
// a FIFO, and "quick", on a fake clock and a timer the test fires. It
// returns the FIFO, the timer's channel, and the waits asked of it.
func gatedManager(t *testing.T) (m *Manager, clock *fakeClock, gate string, fire chan time.Time, waits func() []time.Duration) {
	t.Helper()
	gate = filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	gated := named(t, "gated", "")
	gated.Env[listGateVariable] = gate
	quick := named(t, "quick", "")
	gated.ListWait = DefaultListWait
	cfg := Config{Servers: map[string]ServerConfig{"gated": gated, "quick": quick}}
	clock = &fakeClock{now: time.Unix(1_000_000, 0)}
	fire = make(chan time.Time)
	var mu sync.Mutex
	var asked []time.Duration
	m = NewManager(ManagerOptions{
		Client: NewClient(Options{Lookup: lookup(map[string]string{"TEST_GREETING": "hello"})}),
		Config: func(string) Config { return cfg },
		Now:    clock.Now, Idle: -1,
		After: func(d time.Duration) <-chan time.Time {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, d)
			return fire
		},
	})
	t.Cleanup(func() { m.Close() })
	return m, clock, gate, fire, func() []time.Duration { mu.Lock(); defer mu.Unlock(); return slices.Clone(asked) }
}

// serversOf returns the servers of tools, each once, in order.
func serversOf(tools []albedo.ServerTool) []string {
	var out []string
	for _, t := range tools {
		if len(out) == 0 || out[len(out)-1] != t.Ref.Server {
			out = append(out, t.Ref.Server)
		}
	}
	return out
}

// waitFor waits until ok holds: a listing ends in the background.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestATurnWaitsForAListingOnlyItsBoundAndGetsTheLateToolsNextTurn(t *testing.T) {
	m, clock, gate, fire, waits := gatedManager(t)
	ws := t.TempDir()
	stderrOf := func(name string) string {
		for _, st := range m.Status() {
			if st.Name == name {
				return st.Stderr
			}
		}
		return ""
	}
	turn := make(chan albedo.ServerTools, 1)
	go func() { turn <- m.TurnTools(context.Background(), ws) }()
	waitFor(t, "quick listed and gated's listing held", func() bool {
		return slices.Equal(serversOf(m.Listed(ws).Tools), []string{"quick"}) && strings.Contains(stderrOf("gated"), "listing held")
	})
	fire <- time.Time{} // the bound passes
	first := <-turn
	if got := serversOf(first.Tools); !slices.Equal(got, []string{"quick"}) {
		t.Errorf("the first turn offers the tools of %q; want quick's only", got)
	}
	if !slices.Equal(first.Pending, []string{"gated"}) || len(first.Problems) != 1 || !strings.Contains(first.Problems[0], "listWaitMs (5000)") {
		t.Errorf("first turn: pending %q, problems %q; want gated pending past listWaitMs", first.Pending, first.Problems)
	}
	if got := waits(); !slices.Equal(got, []time.Duration{DefaultListWait}) {
		t.Errorf("waits = %v; want one of listWaitMs, for the listing under way", got)
	}

	// A turn after the bound of the listing still under way waits for it
	// no more.
	clock.advance(DefaultListWait)
	second := m.TurnTools(context.Background(), ws)
	if !slices.Equal(second.Pending, []string{"gated"}) || len(waits()) != 1 {
		t.Errorf("second turn: pending %q after %d waits; want gated pending with no wait", second.Pending, len(waits()))
	}

	// Released, the listing ends in the background: the next turn offers
	// gated's tools too, and quick's names stay.
	w, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	waitFor(t, "gated listed", func() bool { return len(serversOf(m.Listed(ws).Tools)) == 2 })
	third := m.TurnTools(context.Background(), ws)
	if got := serversOf(third.Tools); !slices.Equal(got, []string{"gated", "quick"}) || len(third.Pending)+len(third.Problems) != 0 {
		t.Errorf("third turn: servers %q, pending %q, problems %q; want both listed", got, third.Pending, third.Problems)
	}
	if first.Tools[0].Name != third.Tools[len(third.Tools)-len(first.Tools)].Name {
		t.Errorf("quick's first tool was %q, is now %q", first.Tools[0].Name, third.Tools[len(third.Tools)-len(first.Tools)].Name)
	}
}

func TestToolsWaitsForAListingUnderWayPastItsBound(t *testing.T) {
	m, _, gate, _, waits := gatedManager(t)
	ws := t.TempDir()
	all := make(chan albedo.ServerTools, 1)
	go func() { all <- m.Tools(context.Background(), ws) }()
	waitFor(t, "gated's listing held", func() bool {
		for _, st := range m.Status() {
			if st.Name == "gated" && strings.Contains(st.Stderr, "listing held") {
				return true
			}
		}
		return false
	})
	w, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	got := <-all
	if servers := serversOf(got.Tools); !slices.Equal(servers, []string{"gated", "quick"}) || len(got.Pending) != 0 {
		t.Errorf("Tools = servers %q, pending %q; want every server's tools", servers, got.Pending)
	}
	if len(waits()) != 0 {
		t.Errorf("Tools asked for timers %v; want it to wait for the listing itself", waits())
	}
}
