package client

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/frontends/home"
)

// recorded is one request a fake daemon received.
type recorded struct {
	Method, Path, Query, IfMatch, Auth string
	Body                               map[string]any
}

// fakeDaemon is an httptest server standing in for the daemon: handler
// answers every request, and each is recorded.
type fakeDaemon struct {
	mu   sync.Mutex
	reqs []recorded
}

// transports are the ways a Client sends requests: New's pooled
// transport.
var transports = []struct {
	name   string
	client func(home.Connection) *Client
}{{"pooled", New}}

// forEachTransport runs test once per transport, as subtests.
func forEachTransport(t *testing.T, test func(t *testing.T, client func(home.Connection) *Client)) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { test(t, tr.client) })
	}
}

// newFake starts a fake daemon and returns a pooled client of it.
func newFake(t *testing.T, handler http.HandlerFunc) (*Client, *fakeDaemon) {
	t.Helper()
	return newFakeOf(t, New, handler)
}

// newFakeOf starts a fake daemon and returns a client of it made by client.
func newFakeOf(t *testing.T, client func(home.Connection) *Client, handler http.HandlerFunc) (*Client, *fakeDaemon) {
	t.Helper()
	f := &fakeDaemon{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, IfMatch: r.Header.Get("If-Match"), Auth: r.Header.Get("Authorization")}
		if data, _ := io.ReadAll(r.Body); len(data) > 0 {
			if err := json.Unmarshal(data, &rec.Body); err != nil {
				t.Errorf("%s %s: body is not a JSON object: %s", r.Method, r.URL, data)
			}
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, rec)
		f.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	n, _ := strconv.Atoi(port)
	return client(home.Connection{Port: n, Token: "tok"}), f
}

// requests returns what the fake received so far.
func (f *fakeDaemon) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// reply writes a JSON answer.
func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
