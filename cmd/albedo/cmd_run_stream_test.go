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
	"sync/atomic"
	"testing"
	"time"

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
		snapshot, _ := json.Marshal(map[string]any{"events": []client.Event{
			{Type: client.EventUser, Seq: 1, Text: prompt},
			{Type: client.EventMessage, Seq: 2, Text: "done"},
			{Type: client.EventTurn, Seq: 3, Status: client.TurnFinished},
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
