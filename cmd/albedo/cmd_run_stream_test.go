package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/home"
)

// TestRunClosesTheStreamThatEndsTheTurn follows a turn whose daemon drops
// the first stream: the turn's end arrives in the snapshot of the second,
// which run must close before it returns.
func TestRunClosesTheStreamThatEndsTheTurn(t *testing.T) {
	const id, prompt = "s1", "do it"
	var streams atomic.Int32
	secondClosed := make(chan struct{})
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"ok": true}`)
	})
	mux.HandleFunc("POST /sessions/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"queued": false}`)
	})
	mux.HandleFunc("GET /sessions/{id}/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if streams.Add(1) == 1 {
			fmt.Fprint(w, "data: {\"events\": []}\n\n")
			return // the daemon went away
		}
		snapshot, _ := json.Marshal(map[string]any{"events": []wire.Event{
			{Type: wire.EventUser, Seq: 1, Text: prompt},
			{Type: wire.EventMessage, Seq: 2, Text: "done"},
			{Type: wire.EventTurn, Seq: 3, Status: wire.TurnFinished},
		}})
		fmt.Fprintf(w, "data: %s\n\n", snapshot)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(secondClosed)
		case <-stop:
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(stop)

	dir := t.TempDir()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	conn := home.Connection{PID: os.Getpid(), Port: port, Token: "token"}
	data, _ := json.Marshal(conn)
	if err := os.WriteFile(filepath.Join(dir, home.ConnectionFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, home: dir}
	r := &turnRun{e: e, id: id}
	if err := r.run(t.Context(), client.New(conn), prompt); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, stderr.String())
	}
	if got := stdout.String(); got != "done\n" {
		t.Errorf("stdout = %q, want the answer", got)
	}
	select {
	case <-secondClosed:
	case <-time.After(10 * time.Second):
		t.Fatal("run returned with the second stream still open")
	}
}

// watchedBuffer is a buffer that tells, on every write, what it holds.
type watchedBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes chan string
}

func (b *watchedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	select {
	case b.writes <- b.buf.String():
	default:
	}
	return len(p), nil
}

func (b *watchedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRunStreamsTheAnswer follows a turn whose daemon holds the stream
// after the first fragments: they must be on stdout (and the reasoning and
// a retry on stderr) before the turn goes on; the failure that ends it is
// printed once, by the error run returns.
func TestRunStreamsTheAnswer(t *testing.T) {
	const id, prompt = "s1", "do it"
	goOn := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sessions/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"queued": false}`)
	})
	mux.HandleFunc("GET /sessions/{id}/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(ev wire.Event) {
			data, _ := json.Marshal(map[string]any{"events": []wire.Event{ev}})
			fmt.Fprintf(w, "data: %s\n\n", data)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"events\": []}\n\n")
		send(wire.Event{Type: wire.EventUser, Seq: 1, Text: prompt})
		send(wire.Event{Type: wire.EventDelta, Kind: wire.DeltaRetry, Text: "retrying (1/4) in 0.5 s: provider \"p\" answered 503"})
		send(wire.Event{Type: wire.EventDelta, Kind: wire.DeltaReasoning, Text: "let me see"})
		send(wire.Event{Type: wire.EventDelta, Kind: wire.DeltaText, Text: "Hel"})
		select {
		case <-goOn:
		case <-r.Context().Done():
			return
		}
		send(wire.Event{Type: wire.EventDelta, Kind: wire.DeltaText, Text: "lo"})
		send(wire.Event{Type: wire.EventMessage, Seq: 2, Text: "Hello"})
		send(wire.Event{Type: wire.EventMessage, Seq: 3, Text: "Second part."})
		send(wire.Event{Type: wire.EventError, Seq: 4, Text: "provider \"p\" answered 500"})
		send(wire.Event{Type: wire.EventTurn, Seq: 5, Status: wire.TurnFailed})
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	stdout := &watchedBuffer{writes: make(chan string, 100)}
	var stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: stdout, stderr: &stderr, home: t.TempDir()}
	r := &turnRun{e: e, id: id}
	done := make(chan error, 1)
	go func() {
		done <- r.run(t.Context(), client.New(home.Connection{PID: os.Getpid(), Port: port, Token: "token"}), prompt)
	}()
	for got := range stdout.writes {
		if got == "Hel" {
			break
		}
		if !strings.HasPrefix("Hel", got) {
			t.Fatalf("stdout = %q before the turn went on", got)
		}
	}
	close(goOn)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), `the turn failed: provider "p" answered 500`) {
		t.Errorf("run: %v, want the failure", err)
	}
	if got, want := stdout.String(), "Hello\n\nSecond part.\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	for _, want := range []string{"albedo: retrying (1/4) in 0.5 s: provider \"p\" answered 503\n", "∴ let me see\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
	if strings.Contains(stderr.String(), "500") || strings.Contains(stderr.String(), "turn failed") {
		t.Errorf("stderr %q reports the failure that run returns", stderr.String())
	}
}
