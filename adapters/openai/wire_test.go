package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The real-provider corpus lives beside the repository, in
// ../shared/wire: recordings of what real model servers sent, and OpenAI's
// published request schemas. It is read at test time, never copied here.

// wireDir returns ../shared/wire beside the repository root (the folder
// holding go.mod), or skips the test when it is absent.
func wireDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
	wire := filepath.Join(filepath.Dir(dir), "shared", "wire")
	if _, err := os.Stat(filepath.Join(wire, "recordings")); err != nil {
		t.Skipf("no provider recordings at %s (the conformance corpus beside the repository): %v", wire, err)
	}
	return wire
}

// recording is one recorded stream file, cut into the bodies of the
// responses it holds.
type recording struct {
	name   string
	bodies [][]byte
}

// loadRecording reads a recording. An .sse file is one response body as
// sent. A .jsonl file holds one chunk a line, replayed as "data: <line>"
// events and a closing "data: [DONE]"; a Responses file with several
// response.created lines holds several responses, in order.
func loadRecording(t testing.TB, dir, name string) recording {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "recordings", name))
	if err != nil {
		t.Fatalf("read recording: %v", err)
	}
	rec := recording{name: name}
	if strings.HasSuffix(name, ".sse") {
		rec.bodies = [][]byte{raw}
		return rec
	}
	var body bytes.Buffer
	flush := func() {
		if body.Len() > 0 {
			body.WriteString("data: [DONE]\n\n")
			rec.bodies = append(rec.bodies, bytes.Clone(body.Bytes()))
			body.Reset()
		}
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.Contains(line, `"type":"response.created"`) {
			flush()
		}
		body.WriteString("data: " + line + "\n\n")
	}
	flush()
	return rec
}

// Framing variants of a recording: the same events, framed as other
// servers frame them.
var (
	// crlf ends every line with \r\n.
	crlf = func(b []byte) []byte {
		return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
	}
	// keepAlive puts OpenRouter's ": OPENROUTER PROCESSING" comments before
	// and between the events.
	keepAlive = func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		const comment = ": OPENROUTER PROCESSING\n\n"
		return append([]byte(comment), bytes.ReplaceAll(b, []byte("\n\n"), []byte("\n\n"+comment))...)
	}
)

// wireChecker validates request bodies against the published schemas with
// acceptance/wirecheck.py, the one validator the acceptance suite uses too
// (its written exceptions live there). One checker serves a test binary.
type wireChecker struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  *bufio.Writer
	out *bufio.Scanner
}

var (
	checkerOnce sync.Once
	checker     *wireChecker
	checkerErr  error
)

// requestChecker starts acceptance/wirecheck.py once per test binary.
func requestChecker(t testing.TB) *wireChecker {
	t.Helper()
	checkerOnce.Do(func() {
		wireDir(t)
		script := filepath.Join(repoRoot(t), "acceptance", "wirecheck.py")
		cmd := exec.Command("python3", script)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			checkerErr = err
			return
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			checkerErr = err
			return
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			checkerErr = fmt.Errorf("start %s: %w", script, err)
			return
		}
		out := bufio.NewScanner(stdout)
		out.Buffer(make([]byte, 1<<20), 64<<20)
		checker = &wireChecker{cmd: cmd, in: bufio.NewWriter(stdin), out: out}
	})
	if checkerErr != nil {
		t.Fatalf("request validator: %v", checkerErr)
	}
	return checker
}

// repoRoot returns the folder holding go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}

// check returns the schema problems of one request body.
func (c *wireChecker) check(protocol string, body map[string]any) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	line, err := json.Marshal(map[string]any{"protocol": protocol, "request": body})
	if err != nil {
		return nil, err
	}
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	if err := c.in.Flush(); err != nil {
		return nil, err
	}
	if !c.out.Scan() {
		return nil, fmt.Errorf("validator ended: %v", c.out.Err())
	}
	var problems []string
	err = json.Unmarshal(c.out.Bytes(), &problems)
	return problems, err
}
