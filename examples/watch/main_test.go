package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakemodel"
	"github.com/albedo-agent/albedo/frontends/client"
)

// output is a buffer the watcher writes to while the test reads it.
type output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// lines returns the lines written so far that start with prefix.
func (o *output) lines(prefix string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, l := range strings.Split(o.buf.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, prefix+" "); ok {
			out = append(out, rest)
		}
	}
	return out
}

// waitFor waits until a line of the session is line.
func (o *output) waitFor(t *testing.T, session, line string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(o.lines(session), line) {
		if time.Now().After(deadline) {
			t.Fatalf("no line %q for %s; output:\n%s", line, session, o.buf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startDaemon runs the albedo daemon on dir until the test ends and
// returns a client of it. The daemon runs as its own process, built from
// cmd/albedo, as users run it. (In this process, under the race detector,
// the daemon's gin handlers report a race: they pass the pooled
// *gin.Context to the store as a context.Context.)
func startDaemon(t *testing.T, dir string) *client.Client {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "albedo")
	build := exec.Command(gobin, "build", "-o", bin, "github.com/albedo-agent/albedo/cmd/albedo")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build albedo: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "daemon")
	cmd.Env = append(os.Environ(), "ALBEDO_HOME="+dir, "ALBEDO_PARENT_PID="+strconv.Itoa(os.Getpid()))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := client.Dial(context.Background(), client.DialOptions{Home: dir, NoStart: true})
		if err == nil {
			t.Cleanup(func() {
				c.Shutdown(context.Background())
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					<-exited
				}
			})
			return c
		}
		select {
		case err := <-exited:
			t.Fatalf("daemon exited: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("daemon did not start: %v", err)
		}
	}
}

// idle waits until a session runs no turn.
func idle(t *testing.T, c *client.Client, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		running, err := c.Status(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s is still running", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatch runs the watcher against a daemon: it prints a session's past
// turn, then picks up a new session and follows its turn live.
func TestWatch(t *testing.T) {
	ctx := context.Background()
	model := fakemodel.Start(func(n int, req fakemodel.Request) fakemodel.Reply {
		switch {
		case n == 1:
			return fakemodel.Python("print(6 * 7)")
		case strings.Contains(req.LastMessage(), "42"):
			return fakemodel.Text("It is 42.")
		}
		return fakemodel.Text("Hello\nthere.")
	})
	defer model.Close()
	dir := filepath.Join(t.TempDir(), "home")
	if err := model.WriteConfig(dir); err != nil {
		t.Fatal(err)
	}
	c := startDaemon(t, dir)

	ws := t.TempDir()
	first, err := c.CreateSession(ctx, ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(ctx, first.ID, "What is 6 × 7?", nil); err != nil {
		t.Fatal(err)
	}
	idle(t, c, first.ID)

	out := &output{}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(wctx, []string{"-home", dir, "-poll", "20ms"}, out) }()

	out.waitFor(t, first.ID, "turn finished")
	second, err := c.CreateSession(ctx, ws, "")
	if err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, second.ID, fmt.Sprintf("watching %q in %s", "new session", ws))
	if _, err := c.Send(ctx, second.ID, "Say hello", nil); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, second.ID, "status: idle")
	stop()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}

	tests := []struct {
		session string
		want    []string
	}{
		{first.ID, []string{
			fmt.Sprintf("watching %q in %s", "What is 6 × 7?", ws),
			"user: What is 6 × 7?",
			"tool_call python: print(6 * 7)",
			"tool ok: 42",
			"message: It is 42.",
			"turn finished",
		}},
		{second.ID, []string{
			fmt.Sprintf("watching %q in %s", "new session", ws),
			"status: running",
			"user: Say hello",
			`message: Hello\nthere.`,
			"status: 0 tokens in, 0 out",
			"turn finished",
			"status: idle",
		}},
	}
	for _, tt := range tests {
		if got := out.lines(tt.session); !slices.Equal(got, tt.want) {
			t.Errorf("lines of %s:\n got %q\nwant %q", tt.session, got, tt.want)
		}
	}
}

// TestWatchWithoutDaemon checks that the watcher says no daemon runs.
func TestWatchWithoutDaemon(t *testing.T) {
	err := run(context.Background(), []string{"-home", t.TempDir()}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no albedo daemon serves") {
		t.Fatalf("err = %v, want no daemon", err)
	}
}

func TestDescribe(t *testing.T) {
	running, stopped := true, false
	tests := []struct {
		ev   wire.Event
		want string
	}{
		{wire.Event{Type: "user", Text: "hi\nthere\n"}, `user: hi\nthere`},
		{wire.Event{Type: "user", Text: "albedo restarted", Source: "daemon restart"}, "user (daemon restart): albedo restarted"},
		{wire.Event{Type: "user", Text: "look", Image: &wire.ImageMeta{MimeType: "image/png", Width: 2, Height: 3}}, "user: look [image/png 2×3]"},
		{wire.Event{Type: "thinking", Text: "hmm"}, "thinking: hmm"},
		{wire.Event{Type: "tool_call", Name: "python", Code: "x = 1\nx"}, `tool_call python: x = 1\nx`},
		{wire.Event{Type: "tool", Status: "ok", Result: `{"status":"ok","output":"","value":"1"}`}, "tool ok: 1"},
		{wire.Event{Type: "tool", Status: "error", Result: `{"status":"error","output":"","error":"NameError"}`}, "tool error: NameError"},
		{wire.Event{Type: "tool", Status: "ok", Result: `{"status":"ok","output":""}`}, "tool ok"},
		{wire.Event{Type: "error", Text: "provider down"}, "error: provider down"},
		{wire.Event{Type: "turn", Status: "interrupted"}, "turn interrupted"},
		{wire.Event{Type: "delta", Kind: "text", Text: "He"}, `delta text: "He"`},
		{wire.Event{Type: "queued", Text: "later"}, "queued: later"},
		{wire.Event{Type: "status", Running: &running}, "status: running"},
		{wire.Event{Type: "status", Running: &stopped}, "status: idle"},
		{wire.Event{Type: "status", Usage: &wire.Usage{InputTokens: new(int64(3)), OutputTokens: new(int64(4))}}, "status: 3 tokens in, 4 out"},
	}
	for _, tt := range tests {
		if got := describe(tt.ev); got != tt.want {
			t.Errorf("describe(%+v) = %q, want %q", tt.ev, got, tt.want)
		}
	}
}
