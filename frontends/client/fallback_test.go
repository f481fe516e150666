package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/frontends/home"
)

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// TestFallback checks when a client trusts the fallback Dial gives it: only
// for a request that could not connect, and only until a request got
// through.
func TestFallback(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// stale says whether the client first points at a closed port.
		stale bool
		// status is the fake daemon's answer.
		status int
		// fallbackErr is what the fallback fails with, if anything.
		fallbackErr error
		// wantCalls is how often the fallback runs over two requests.
		wantCalls int32
		// wantRequests is how many requests the fake daemon sees.
		wantRequests int
		wantErr      bool
	}{
		{name: "daemon answers: fallback unused", status: 200, wantCalls: 0, wantRequests: 2},
		{name: "nothing listens: fallback once, request resent", stale: true, status: 200, wantCalls: 1, wantRequests: 2},
		{name: "daemon answers an error: fallback unused", status: 404, wantCalls: 0, wantRequests: 2, wantErr: true},
		{name: "fallback fails: its error is reported", stale: true, status: 200, fallbackErr: errors.New("no daemon could start"), wantCalls: 2, wantRequests: 0, wantErr: true},
	}
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				live, fake := newFake(t, func(w http.ResponseWriter, r *http.Request) {
					if tt.status != 200 {
						reply(w, tt.status, map[string]string{"error": "no such session", "code": "not_found"})
						return
					}
					reply(w, 200, map[string]any{"id": "s1"})
				})
				conn := live.Connection()
				if tt.stale {
					conn = home.Connection{Port: closedPort(t), Token: "old"}
				}
				c := client(conn)
				var calls atomic.Int32
				c.fallback = func(context.Context) (home.Connection, error) {
					calls.Add(1)
					return live.Connection(), tt.fallbackErr
				}
				var err error
				for range 2 {
					_, err = c.CreateSession(ctx, "/w", "p")
					if (err != nil) != tt.wantErr {
						t.Fatalf("CreateSession: err = %v, want error: %v", err, tt.wantErr)
					}
				}
				if tt.fallbackErr != nil && !errors.Is(err, tt.fallbackErr) {
					t.Errorf("err = %v, want it to carry %v", err, tt.fallbackErr)
				}
				if got := calls.Load(); got != tt.wantCalls {
					t.Errorf("fallback ran %d times, want %d", got, tt.wantCalls)
				}
				reqs := fake.requests()
				if len(reqs) != tt.wantRequests {
					t.Fatalf("daemon saw %d requests, want %d", len(reqs), tt.wantRequests)
				}
				for _, r := range reqs {
					if r.Body["workspace"] != "/w" || r.Auth != "Bearer tok" {
						t.Errorf("request %+v: want the body and the new daemon's token", r)
					}
				}
			})
		}
	})
}

// answerIn sets how long c waits for the headers of an answer.
func answerIn(t *testing.T, c *Client, d time.Duration) {
	t.Helper()
	switch tr := c.http.Transport.(type) {
	case *http.Transport:
		tr.ResponseHeaderTimeout = d
	default:
		t.Fatalf("unknown transport %T", tr)
	}
}

// TestNoAnswer checks that a daemon that takes a request and never answers
// makes the request fail with ErrNoAnswer rather than hang, while an answer
// whose body takes longer than that (a stream) is read to its end.
func TestNoAnswer(t *testing.T) {
	const within = 50 * time.Millisecond
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		release := make(chan struct{})
		defer close(release)
		c, _ := newFakeOf(t, client, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow-body" {
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				time.Sleep(3 * within)
				io.WriteString(w, "all of it")
				return
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		answerIn(t, c, within)
		if _, err := c.Sessions(context.Background()); !errors.Is(err, ErrNoAnswer) {
			t.Errorf("no answer: err = %v, want ErrNoAnswer", err)
		}
		resp, err := c.send(context.Background(), http.MethodGet, "/slow-body", nil, nil)
		if err != nil {
			t.Fatalf("slow body: %v", err)
		}
		defer resp.Body.Close()
		if body, err := io.ReadAll(resp.Body); err != nil || string(body) != "all of it" {
			t.Errorf("slow body = %q, %v; want all of it", body, err)
		}
	})
}

// resetting returns a loopback port that takes requests and resets their
// connections before answering, as a daemon killed while taking them does.
func resetting(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 1)) // the request has been sent
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// TestResetGetFailsOver checks that a read whose connection is reset goes
// to the daemon the fallback finds, and that a change does not.
func TestResetGetFailsOver(t *testing.T) {
	ctx := context.Background()
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		live, _ := newFake(t, func(w http.ResponseWriter, r *http.Request) {
			reply(w, 200, []map[string]any{})
		})
		for _, tt := range []struct {
			name      string
			call      func(*Client) error
			wantCalls int32
		}{
			{"a read is resent", func(c *Client) error { _, err := c.Sessions(ctx); return err }, 1},
			{"a change is not", func(c *Client) error { _, err := c.CreateSession(ctx, "/w", "p"); return err }, 0},
		} {
			t.Run(tt.name, func(t *testing.T) {
				c := client(home.Connection{Port: resetting(t), Token: "old"})
				var calls atomic.Int32
				c.fallback = func(context.Context) (home.Connection, error) {
					calls.Add(1)
					return live.Connection(), nil
				}
				err := tt.call(c)
				if calls.Load() != tt.wantCalls || (tt.wantCalls == 1) != (err == nil) {
					t.Errorf("fallback ran %d times, err = %v; want %d", calls.Load(), err, tt.wantCalls)
				}
			})
		}
	})
}
