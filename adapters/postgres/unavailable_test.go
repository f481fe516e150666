package postgres

import (
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// cutter is a TCP proxy to the test server that a test can cut, as if the
// server went away, and restore on the same address.
type cutter struct {
	t      *testing.T
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
}

// newCutter starts a proxy to the server at the URL u and returns the URL
// that goes through it.
func newCutter(t *testing.T, u string) (*cutter, string) {
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{t: t, target: parsed.Host}
	c.listen("127.0.0.1:0")
	t.Cleanup(c.cut)
	parsed.Host = c.addr
	return c, parsed.String()
}

// listen accepts connections on addr and pipes each to the server.
func (c *cutter) listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		c.t.Fatalf("listen on %s: %v", addr, err)
	}
	c.mu.Lock()
	c.ln, c.addr = ln, ln.Addr().String()
	c.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", c.target)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
}

// cut closes the listener and every connection through it.
func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ln.Close()
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

// restore listens again on the same address.
func (c *cutter) restore() { c.listen(c.addr) }

// TestServerGoneIsUnavailable checks that reads and writes fail with
// EStoreUnavailable while the server cannot be reached, that nothing
// committed before is lost, and that the store works again once the
// server is back, without being opened again.
func TestServerGoneIsUnavailable(t *testing.T) {
	t.Parallel()
	proxy, u := newCutter(t, pgtest.NewDatabase(t))
	s := openStore(t, u)
	ctx := t.Context()
	sess := newSession("a")
	mustCommit(t, s, albedo.Commit{Session: &sess, Items: []albedo.Item{{Kind: albedo.KindUser, Text: "before"}}})

	proxy.cut()
	_, err := s.Commit(ctx, albedo.Commit{SessionID: "a", Items: []albedo.Item{{Kind: albedo.KindUser, Text: "lost"}}})
	wantCode(t, err, albedo.EStoreUnavailable)
	_, err = s.Session(ctx, "a")
	wantCode(t, err, albedo.EStoreUnavailable)
	_, err = s.Items(ctx, "a", 0, 0)
	wantCode(t, err, albedo.EStoreUnavailable)
	_, err = s.Sessions(ctx)
	wantCode(t, err, albedo.EStoreUnavailable)
	if strings.Contains(err.Error(), passwordOf(t, u)) {
		t.Errorf("the error %q shows the password", err)
	}

	proxy.restore()
	mustCommit(t, s, albedo.Commit{SessionID: "a", Items: []albedo.Item{{Kind: albedo.KindUser, Text: "after"}}})
	items, err := s.Items(ctx, "a", 0, 0)
	if err != nil || len(items) != 2 || items[0].Text != "before" || items[1].Text != "after" || items[1].Seq != 2 {
		t.Errorf("transcript after the server came back = %+v, %v; want before and after, numbered 1 and 2", items, err)
	}
}

// TestOpenUnreachable checks that a server that cannot be reached at
// start is a store-unavailable error that names the server but not the
// password.
func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = Open(t.Context(), "postgres://albedo:s3cret@"+addr+"/albedo?sslmode=disable")
	wantCode(t, err, albedo.EStoreUnavailable)
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), addr) {
		t.Errorf("error %q: want the server's address without the password", err)
	}
}
