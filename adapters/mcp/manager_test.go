package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// fakeClock is a clock the tests move.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// managerWith returns a Manager of the fake servers cfgs (by name), whose
// configuration the returned function replaces, on a fake clock.
func managerWith(t *testing.T, cfgs ...ServerConfig) (*Manager, *fakeClock, func(...ServerConfig)) {
	t.Helper()
	var mu sync.Mutex
	current := Config{}
	set := func(cfgs ...ServerConfig) {
		mu.Lock()
		defer mu.Unlock()
		current = Config{Servers: map[string]ServerConfig{}}
		for _, c := range cfgs {
			current.Servers[c.Name] = c
		}
	}
	set(cfgs...)
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	m := NewManager(ManagerOptions{
		Client: NewClient(Options{Lookup: lookup(map[string]string{"TEST_GREETING": "hello"})}),
		Config: func(string) Config { mu.Lock(); defer mu.Unlock(); return current },
		Now:    clock.Now, Idle: -1,
	})
	t.Cleanup(func() { m.Close() })
	return m, clock, set
}

// named returns the fake server's config under another name.
func named(t *testing.T, name, marker string) ServerConfig {
	cfg := stdioConfig(t, marker)
	cfg.Name = name
	return cfg
}

// pidIn reads the pid a fake server wrote to its marker.
func pidIn(t *testing.T, marker string) int {
	t.Helper()
	raw, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// gone reports whether the process group led by pid is gone.
func gone(pid int) bool { return syscall.Kill(-pid, 0) == syscall.ESRCH }

func TestTheManagerListsEveryServersToolsUnderTheirNamesAndCallsThem(t *testing.T) {
	m, _, _ := managerWith(t, named(t, "b", ""), named(t, "a.x", ""))
	list := m.Tools(context.Background(), t.TempDir())
	if len(list.Problems) > 0 {
		t.Fatalf("problems: %q", list.Problems)
	}
	byName := map[string]albedo.ServerTool{}
	for _, tool := range list.Tools {
		byName[tool.Name] = tool
	}
	if got := byName["mcp_b_echo"]; got.Ref != (albedo.ServerToolRef{Server: "b", Tool: "echo"}) || !json.Valid(got.Parameters) {
		t.Errorf("mcp_b_echo = %+v", got)
	}
	if list.Tools[0].Ref.Server != "a.x" {
		t.Errorf("the first tool is %+v; want the servers in name order", list.Tools[0])
	}
	for name := range byName {
		if strings.Contains(name, ".") || len(name) > MaxToolName {
			t.Errorf("tool name %q is not one every provider accepts", name)
		}
	}
	ws := t.TempDir()
	res, err := m.Call(context.Background(), ws, albedo.ServerToolRef{Server: "b", Tool: "echo"}, json.RawMessage(`{"text":"hi"}`))
	if err != nil || res.Text != `echo: {"text":"hi"}` || !strings.Contains(string(res.Raw), `"content"`) {
		t.Errorf("b/echo = %+v, %v", res, err)
	}
	if _, err := m.Call(context.Background(), ws, albedo.ServerToolRef{Server: "nope", Tool: "echo"}, nil); err == nil || !strings.Contains(err.Error(), "no MCP server \"nope\"") {
		t.Errorf("a call to a server not configured = %v", err)
	}
	if _, err := m.Call(context.Background(), ws, albedo.ServerToolRef{Server: "b", Tool: "echo"}, json.RawMessage(`[1]`)); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("a call with arguments that are no object = %v", err)
	}
}

func TestAHangingServerHoldsUpNoOtherServer(t *testing.T) {
	m, _, _ := managerWith(t, named(t, "slow", ""), named(t, "quick", ""))
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	hung := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, ws, albedo.ServerToolRef{Server: "slow", Tool: "hang"}, nil)
		hung <- err
	}()
	if res, err := m.Call(context.Background(), ws, albedo.ServerToolRef{Server: "quick", Tool: "echo"}, nil); err != nil || res.Text != "echo: {}" {
		t.Errorf("quick/echo while slow/hang runs = %+v, %v", res, err)
	}
	if list := m.Tools(context.Background(), ws); len(list.Problems) > 0 || len(list.Tools) == 0 {
		t.Errorf("listing while slow/hang runs = %+v", list)
	}
	cancel()
	if err := <-hung; err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("the interrupted hang = %v", err)
	}
}

func TestACrashedServerStartsAgainAfterItsBackoffAndIsMarkedFailedAfterRepeatedCrashes(t *testing.T) {
	m, clock, _ := managerWith(t, named(t, "fake", ""))
	ws := t.TempDir()
	crash := albedo.ServerToolRef{Server: "fake", Tool: "crash"}
	echo := albedo.ServerToolRef{Server: "fake", Tool: "echo"}
	if _, err := m.Call(context.Background(), ws, crash, nil); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Fatalf("crash = %v; want the outcome unknown", err)
	}
	waitState(t, m, StateIdle) // the first crash: no wait before the next start
	if _, err := m.Call(context.Background(), ws, echo, nil); err != nil {
		t.Fatalf("echo after the first crash = %v; want it started again", err)
	}
	for i := 1; i <= MaxCrashes; i++ {
		clock.advance(maxBackoff)
		if _, err := m.Call(context.Background(), ws, crash, nil); err == nil {
			t.Fatalf("crash %d answered", i)
		}
		want := StateWaiting
		if i == 1 {
			want = StateIdle
		}
		if i == MaxCrashes {
			want = StateFailed
		}
		waitState(t, m, want)
		if want == StateWaiting {
			if _, err := m.Call(context.Background(), ws, echo, nil); err == nil || !strings.Contains(err.Error(), "may start again in") {
				t.Errorf("a call during the backoff = %v; want it refused without a start", err)
			}
		}
	}
	clock.advance(time.Hour)
	if _, err := m.Call(context.Background(), ws, echo, nil); err == nil || !strings.Contains(err.Error(), "marked failed") {
		t.Errorf("a call to a failed server = %v", err)
	}
	if !m.Restart("fake") {
		t.Fatal("Restart found no server")
	}
	if _, err := m.Call(context.Background(), ws, echo, nil); err != nil {
		t.Errorf("echo after a restart = %v", err)
	}
}

// waitState waits for the only server's state to be want: a crash is
// seen when the connection's end is.
func waitState(t *testing.T, m *Manager, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := m.Status()
		if len(st) == 1 && st[0].State == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("status = %+v; want state %s", st, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAnIdleServerIsStoppedAndStartsAgainWhenUsed(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pid")
	cfg := named(t, "fake", marker)
	var mu sync.Mutex
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	m := NewManager(ManagerOptions{
		Client: NewClient(Options{Lookup: lookup(map[string]string{"TEST_GREETING": "hello"})}),
		Config: func(string) Config {
			mu.Lock()
			defer mu.Unlock()
			return Config{Servers: map[string]ServerConfig{"fake": cfg}}
		},
		Now: clock.Now, Idle: time.Hour,
	})
	defer m.Close()
	ws := t.TempDir()
	echo := albedo.ServerToolRef{Server: "fake", Tool: "echo"}
	if _, err := m.Call(context.Background(), ws, echo, nil); err != nil {
		t.Fatal(err)
	}
	first := pidIn(t, marker)
	if n := m.ReapIdle(); n != 0 {
		t.Fatalf("ReapIdle stopped %d servers used just now", n)
	}
	clock.advance(2 * time.Hour)
	if n := m.ReapIdle(); n != 1 {
		t.Fatalf("ReapIdle stopped %d servers; want the idle one", n)
	}
	if !gone(first) {
		t.Errorf("the idle server's process group %d survives", first)
	}
	if _, err := m.Call(context.Background(), ws, echo, nil); err != nil {
		t.Fatalf("echo after the idle stop = %v", err)
	}
	if second := pidIn(t, marker); second == first {
		t.Error("the server was not started again")
	}
}

func TestAChangedConfigurationStopsTheServerItReplacesAndCloseStopsAll(t *testing.T) {
	dir := t.TempDir()
	oldMarker, keptMarker := filepath.Join(dir, "old"), filepath.Join(dir, "kept")
	old, kept := named(t, "changing", oldMarker), named(t, "kept", keptMarker)
	m, _, set := managerWith(t, old, kept)
	ws := t.TempDir()
	if list := m.Tools(context.Background(), ws); len(list.Problems) > 0 {
		t.Fatal(list.Problems)
	}
	oldPID, keptPID := pidIn(t, oldMarker), pidIn(t, keptMarker)
	changed := old
	changed.CallTimeout = time.Minute
	set(changed, kept)
	if _, err := m.Call(context.Background(), ws, albedo.ServerToolRef{Server: "changing", Tool: "echo"}, nil); err != nil {
		t.Fatal(err)
	}
	waitGone(t, oldPID)
	if gone(keptPID) {
		t.Error("the server whose configuration did not change was stopped")
	}
	newPID := pidIn(t, oldMarker)
	m.Close()
	for _, pid := range []int{newPID, keptPID} {
		if !gone(pid) {
			t.Errorf("server %d survives Close", pid)
		}
	}
	if list := m.Tools(context.Background(), ws); len(list.Tools) > 0 {
		t.Error("a closed manager still lists tools")
	}
}

// waitGone waits for the process group led by pid to be gone: a replaced
// server is stopped in the background.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d survives", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBackoffGrowsToItsCap(t *testing.T) {
	tests := []struct {
		crashes int
		want    time.Duration
	}{{1, 0}, {2, time.Second}, {3, 2 * time.Second}, {4, 4 * time.Second}, {7, 30 * time.Second}, {70, 30 * time.Second}}
	for _, tt := range tests {
		if got := backoff(tt.crashes); got != tt.want {
			t.Errorf("backoff(%d) = %s; want %s", tt.crashes, got, tt.want)
		}
	}
}

func TestEachWorkspaceRunsTheServersItsOwnConfigurationNames(t *testing.T) {
	mine, theirs := t.TempDir(), t.TempDir()
	shared, project := named(t, "shared", ""), named(t, "project", "")
	m := NewManager(ManagerOptions{
		Client: NewClient(Options{Lookup: lookup(map[string]string{"TEST_GREETING": "hello"})}),
		Config: func(workspace string) Config {
			cfg := Config{Servers: map[string]ServerConfig{"shared": shared}}
			if workspace == mine {
				cfg.Servers["project"] = project
			}
			return cfg
		},
		Idle: -1,
	})
	defer m.Close()
	servers := func(ws string) []string {
		var out []string
		for _, tool := range m.Tools(context.Background(), ws).Tools {
			if tool.Ref.Tool == "echo" {
				out = append(out, tool.Ref.Server)
			}
		}
		return out
	}
	if got := strings.Join(servers(mine), ","); got != "project,shared" {
		t.Errorf("the servers of the workspace with a project server = %s", got)
	}
	if got := strings.Join(servers(theirs), ","); got != "shared" {
		t.Errorf("the servers of the other workspace = %s", got)
	}
	if _, err := m.Call(context.Background(), theirs, albedo.ServerToolRef{Server: "project", Tool: "echo"}, nil); err == nil {
		t.Error("a workspace called another workspace's project server")
	}
	if st := m.Status(); len(st) != 3 {
		t.Errorf("runs = %+v; want project and shared for one workspace, shared for the other", st)
	}
}

func TestListedShowsTheLastListingAndStartsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	m, _, _ := managerWith(t, named(t, "b", marker), named(t, "a", ""))
	ws := t.TempDir()
	if listed := m.Listed(ws); len(listed.Tools) != 0 {
		t.Fatalf("before any use: %+v", listed)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("Listed started a server")
	}
	list := m.Tools(context.Background(), ws)
	listed := m.Listed(ws)
	if len(listed.Tools) == 0 || !reflect.DeepEqual(listed.Tools, list.Tools) {
		t.Errorf("Listed = %d tools, Tools = %d; want the same", len(listed.Tools), len(list.Tools))
	}
	if other := m.Listed(t.TempDir()); len(other.Tools) != 0 {
		t.Errorf("another workspace's listing: %+v", other)
	}
}
