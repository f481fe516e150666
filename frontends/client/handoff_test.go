package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/frontends/home"
)

// dyingDaemon listens on a loopback port and treats every connection the
// way a daemon killed at that moment would.
type dyingDaemon struct {
	ln net.Listener
	// took counts the requests it read whole.
	took atomic.Int32
}

// dying names the ways a daemon goes away with a request on the line.
type dying int

const (
	// resetUnread resets the connection without reading a byte.
	resetUnread dying = iota
	// closeAfterRead reads the whole request, then closes the connection.
	closeAfterRead
	// resetAfterRead reads the whole request, then resets the connection.
	resetAfterRead
	// halfAnswer reads the request and writes part of a status line.
	halfAnswer
)

// newDyingDaemon starts a listener that dies as how says on every
// connection.
func newDyingDaemon(t *testing.T, how dying) *dyingDaemon {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dyingDaemon{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go d.die(conn.(*net.TCPConn), how)
		}
	}()
	return d
}

// die ends one connection as how says.
func (d *dyingDaemon) die(conn *net.TCPConn, how dying) {
	defer conn.Close()
	if how == resetUnread {
		conn.SetLinger(0)
		return
	}
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return
	}
	if _, err := io.Copy(io.Discard, req.Body); err != nil {
		return
	}
	d.took.Add(1)
	switch how {
	case resetAfterRead:
		conn.SetLinger(0)
	case halfAnswer:
		io.WriteString(conn, "HTTP/1.1 2")
	}
}

// connection returns how to reach the dying daemon.
func (d *dyingDaemon) connection() home.Connection {
	return home.Connection{Port: d.ln.Addr().(*net.TCPAddr).Port, Token: "old"}
}

// TestHandOff specifies which requests that reach a dying daemon go to the
// next one: every request that cannot have been processed, and reads that
// got no byte of an answer. A write that may have been processed is not
// sent again and fails with ErrMaybeDelivered.
func TestHandOff(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		how  dying
		// write sends POST /sessions instead of GET /sessions.
		write bool
		// wantResent says whether the next daemon gets the request.
		wantResent bool
		// wantMaybe says the error must be ErrMaybeDelivered.
		wantMaybe bool
	}{
		{name: "read, reset before it was read", how: resetUnread, wantResent: true},
		{name: "write, reset before it was read", how: resetUnread, write: true, wantResent: true},
		{name: "read, closed after it was read", how: closeAfterRead, wantResent: true},
		{name: "read, reset after it was read", how: resetAfterRead, wantResent: true},
		{name: "write, closed after it was read", how: closeAfterRead, write: true, wantMaybe: true},
		{name: "write, reset after it was read", how: resetAfterRead, write: true, wantMaybe: true},
		{name: "read, part of an answer", how: halfAnswer},
		{name: "write, part of an answer", how: halfAnswer, write: true},
	}
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				next, fake := newFake(t, func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet {
						reply(w, 200, []map[string]any{{"id": "s1"}})
						return
					}
					reply(w, 201, map[string]any{"id": "s1"})
				})
				dead := newDyingDaemon(t, tt.how)
				c := client(dead.connection())
				var calls atomic.Int32
				c.fallback = func(context.Context) (home.Connection, error) {
					calls.Add(1)
					return next.Connection(), nil
				}
				var err error
				if tt.write {
					workspace := "/w"
					if tt.how == resetUnread {
						// Too big for the socket's buffers: the write is
						// still going on when the reset comes.
						workspace = "/" + strings.Repeat("w", 16<<20)
					}
					_, err = c.CreateSession(ctx, workspace, "")
				} else {
					_, err = c.Sessions(ctx)
				}
				resent := len(fake.requests())
				switch {
				case tt.wantResent && (err != nil || resent != 1):
					t.Fatalf("err = %.300s, next daemon saw %d requests; want the request resent once", strings.ReplaceAll(fmt.Sprint(err), "ww", ""), resent)
				case !tt.wantResent && (err == nil || resent != 0):
					t.Fatalf("err = %v, next daemon saw %d requests; want an error and nothing resent", err, resent)
				}
				if got := errors.Is(err, ErrMaybeDelivered); got != tt.wantMaybe {
					t.Errorf("err = %v; ErrMaybeDelivered: %v, want %v", err, got, tt.wantMaybe)
				}
				if tt.wantResent && calls.Load() != 1 {
					t.Errorf("fallback ran %d times, want once", calls.Load())
				}
			})
		}
	})
}
