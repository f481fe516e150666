package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioConfig is a server config running this test binary as the fake
// server, writing its pid to marker.
func stdioConfig(t testing.TB, marker string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{
		Name: "fake", Command: exe, Args: []string{"-test.run=^$"},
		Env:            map[string]string{fakeServerVariable: marker, "GREETING": "${TEST_GREETING}"},
		StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second,
	}
}

// lookup finds variables in a fixed map, as the daemon's environment.
func lookup(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

// connectStdio starts the fake stdio server and closes it when the test
// ends.
func connectStdio(t *testing.T, cfg ServerConfig, opts Options) *Conn {
	t.Helper()
	if opts.Lookup == nil {
		opts.Lookup = lookup(map[string]string{"TEST_GREETING": "hello"})
	}
	conn, err := NewClient(opts).Connect(context.Background(), cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// connectHTTP serves the fake server over streamable HTTP on loopback and
// connects to it.
func connectHTTP(t *testing.T) *Conn {
	t.Helper()
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return fakeServer() }, nil))
	t.Cleanup(srv.Close)
	cfg := ServerConfig{Name: "web", URL: srv.URL, StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
	conn, err := NewClient(Options{}).Connect(context.Background(), cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func TestConnectedServersListAndCallTools(t *testing.T) {
	for name, connect := range map[string]func(*testing.T) *Conn{
		"stdio": func(t *testing.T) *Conn { return connectStdio(t, stdioConfig(t, ""), Options{}) },
		"http":  connectHTTP,
	} {
		t.Run(name, func(t *testing.T) {
			conn := connect(t)
			tools, err := conn.Tools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]Tool{}
			for _, tool := range tools {
				byName[tool.Ref.Tool] = tool
			}
			if byName["echo"].Description != "says its text back" {
				t.Errorf("echo's description = %q", byName["echo"].Description)
			}
			refs := byName["refs"].Schema
			if _, ok := refs["$defs"]; ok {
				t.Errorf("the refs tool's schema keeps $defs: %v", refs)
			}
			at := refs["properties"].(map[string]any)["at"].(map[string]any)
			if at["type"] != "object" {
				t.Errorf("the $ref of refs.at was not inlined: %v", at)
			}

			res, err := conn.Call(context.Background(), "echo", map[string]any{"text": "hi"})
			if err != nil || res.IsError || res.Text != `echo: {"text":"hi"}` {
				t.Errorf("echo = %+v, %v", res, err)
			}
			res, err = conn.Call(context.Background(), "fail", nil)
			if err != nil || !res.IsError || res.Text != "it broke" {
				t.Errorf("fail = %+v, %v; want the tool's error as an error result", res, err)
			}
			res, err = conn.Call(context.Background(), "picture", nil)
			if err != nil || len(res.Images) != 1 || res.Images[0].MIMEType != "image/png" || string(res.Images[0].Data) != "\x89PNG fake" {
				t.Errorf("picture = %+v, %v", res, err)
			}
			res, err = conn.Call(context.Background(), "structured", nil)
			if err != nil || res.Text != `{"n":3}` {
				t.Errorf("structured = %+v, %v; want the structured content as JSON", res, err)
			}
			res, err = conn.Call(context.Background(), "big", nil)
			if err != nil || len(res.Text) != 1<<20 {
				t.Errorf("big gave %d bytes, %v; want all of 1 MiB", len(res.Text), err)
			}
			_, err = conn.Call(context.Background(), "nosuch", nil)
			if err == nil || !strings.Contains(err.Error(), "answered an error") {
				t.Errorf("an unknown tool = %v; want the server's JSON-RPC error", err)
			}
			// The connection still serves after each failure; no arguments
			// go as an empty object.
			if res, err := conn.Call(context.Background(), "echo", nil); err != nil || res.Text != "echo: {}" {
				t.Errorf("echo after the failures = %+v, %v", res, err)
			}
		})
	}
}

func TestAStdioServerSeesTheFilteredEnvironmentAndItsNamedVariables(t *testing.T) {
	conn := connectStdio(t, stdioConfig(t, ""), Options{Env: []string{"PATH=/usr/bin", "LANG=C.UTF-8"}})
	res, err := conn.Call(context.Background(), "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(res.Text, "\n")
	for _, want := range []string{"PATH=/usr/bin", "LANG=C.UTF-8", "GREETING=hello"} {
		if !contains(got, want) {
			t.Errorf("the server's environment lacks %s: %q", want, got)
		}
	}
	for _, kv := range got {
		if name, _, _ := strings.Cut(kv, "="); name == "HOME" || strings.HasPrefix(name, "ALBEDO_") && name != fakeServerVariable {
			t.Errorf("the server sees %s, which the base environment did not give it", kv)
		}
	}
}

func TestAServerWhoseVariableIsMissingDoesNotStart(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	_, err := NewClient(Options{Lookup: lookup(nil)}).Connect(context.Background(), stdioConfig(t, marker), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "TEST_GREETING is not set") {
		t.Fatalf("Connect = %v; want the missing variable named", err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the server ran although its variable was missing (%v)", err)
	}
}

func TestAHangingCallEndsAtTheCallTimeoutAndTheServerServesOn(t *testing.T) {
	cfg := stdioConfig(t, "")
	cfg.CallTimeout = 300 * time.Millisecond
	conn := connectStdio(t, cfg, Options{})
	_, err := conn.Call(context.Background(), "hang", nil)
	if err == nil || !strings.Contains(err.Error(), "did not answer calling hang within callTimeoutMs (300)") {
		t.Fatalf("hang = %v; want the timeout named", err)
	}
	if res, err := conn.Call(context.Background(), "echo", nil); err != nil || res.IsError {
		t.Errorf("echo after the timeout = %+v, %v", res, err)
	}
}

func TestAnInterruptEndsACall(t *testing.T) {
	conn := connectStdio(t, stdioConfig(t, ""), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := conn.Call(ctx, "hang", nil); done <- err }()
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "was interrupted") {
		t.Fatalf("an interrupted hang = %v", err)
	}
}

func TestACrashedServerFailsItsCallAsOutcomeUnknownWithItsStderr(t *testing.T) {
	conn := connectStdio(t, stdioConfig(t, ""), Options{})
	_, err := conn.Call(context.Background(), "crash", nil)
	if err == nil || !strings.Contains(err.Error(), "whether it ran is unknown") || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Fatalf("crash = %v; want a lost connection with the stderr tail", err)
	}
	if !strings.Contains(conn.Stderr(), "fake server starting") {
		t.Errorf("stderr kept = %q", conn.Stderr())
	}
}

func TestClosingAServerKillsItsProcessGroup(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pid")
	conn := connectStdio(t, stdioConfig(t, marker), Options{})
	raw, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(raw))
	if pid != conn.proc.Process.Pid {
		t.Fatalf("the server's pid %d is not the started process %d", pid, conn.proc.Process.Pid)
	}
	conn.Close()
	if err := syscall.Kill(-pid, 0); err != syscall.ESRCH {
		t.Errorf("the server's process group %d is still there after Close (%v)", pid, err)
	}
}

func TestConfinementWrapsTheLaunchAndItsErrorStopsTheStart(t *testing.T) {
	var seen Launch
	released := false
	conn := connectStdio(t, stdioConfig(t, ""), Options{Confine: func(_ context.Context, l Launch) (Launch, error) {
		seen = l
		l.Env = append(l.Env, "CONFINED=yes")
		l.Release = func() { released = true }
		return l, nil
	}})
	if seen.Server != "fake" || seen.Dir != seen.Workspace || seen.Workspace == "" {
		t.Errorf("the launch confined = %+v; want the server in its workspace", seen)
	}
	res, err := conn.Call(context.Background(), "env", nil)
	if err != nil || !strings.Contains(res.Text, "CONFINED=yes") {
		t.Errorf("the server did not run the confined launch: %v", err)
	}
	conn.Close()
	if !released {
		t.Error("the launch was not released after the server ended")
	}

	refused := func(context.Context, Launch) (Launch, error) { return Launch{}, os.ErrPermission }
	marker := filepath.Join(t.TempDir(), "started")
	_, err = NewClient(Options{Confine: refused, Lookup: lookup(map[string]string{"TEST_GREETING": ""})}).Connect(context.Background(), stdioConfig(t, marker), t.TempDir())
	if err == nil {
		t.Fatal("a refused confinement still connected")
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the server ran although its confinement failed")
	}
}

func TestEnabledAndDisabledToolsLimitWhatIsOfferedAndCalled(t *testing.T) {
	cfg := stdioConfig(t, "")
	cfg.EnabledTools = []string{"echo", "fail"}
	cfg.DisabledTools = []string{"fail"}
	conn := connectStdio(t, cfg, Options{})
	tools, err := conn.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Ref.Tool != "echo" {
		t.Errorf("tools offered = %+v; want echo only", tools)
	}
	if _, err := conn.Call(context.Background(), "env", nil); err == nil {
		t.Error("a tool not enabled could be called")
	}
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, one := range list {
		if one == s {
			return true
		}
	}
	return false
}
