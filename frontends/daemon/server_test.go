package daemon

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/memstore"
)

// daemonServer is the daemon's HTTP server, as Run builds it, on a port of
// 127.0.0.1.
type daemonServer struct {
	addr    string
	limiter *connLimiter
	svc     *engine.Service
}

// serveDaemon serves the API of opts (with testToken, over a fresh
// service) through newServer and a connLimiter, within limits.
func serveDaemon(t *testing.T, limits serverLimits, opts APIOptions) daemonServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, opts.Port, _ = net.SplitHostPort(ln.Addr().String())
	svc := newTestService(t, memstore.New())
	opts.Service, opts.Token = svc, testToken
	srv := newServer(NewHandler(opts), limits, slog.New(slog.DiscardHandler))
	limiter := limitConns(ln, limits.MaxConns)
	go srv.Serve(limiter)
	t.Cleanup(func() { srv.Close() })
	return daemonServer{addr: ln.Addr().String(), limiter: limiter, svc: svc}
}

// dial opens a connection to the server that the test closes at its end;
// every read and write on it fails after rawWait.
func (d daemonServer) dial(t *testing.T) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", d.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(rawWait))
	return conn
}

// get sends an authorised GET /health on conn and reads the answer's
// status.
func (d daemonServer) get(t *testing.T, conn net.Conn, r *bufio.Reader) (int, error) {
	t.Helper()
	if _, err := fmt.Fprintf(conn, "GET /health HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", d.addr, testToken); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// waitClosed waits for the server to close conn, and fails the test if
// it is still open after rawWait.
func waitClosed(t *testing.T, r io.Reader) {
	t.Helper()
	_, err := io.Copy(io.Discard, r)
	var timeout net.Error
	if errors.As(err, &timeout) && timeout.Timeout() {
		t.Fatalf("the connection is still open after %s", rawWait)
	}
}

// patient limits close nothing in the time of a test, so that only what
// a test is about closes a connection.
func patient(maxConns int) serverLimits {
	return serverLimits{ReadHeader: time.Hour, Read: time.Hour, Idle: time.Hour, MaxConns: maxConns}
}

func TestAHalfSentHeadIsDroppedAtTheHeaderTimeout(t *testing.T) {
	limits := patient(16)
	limits.ReadHeader = 20 * time.Millisecond
	d := serveDaemon(t, limits, APIOptions{})
	conn := d.dial(t)
	io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: ")
	waitClosed(t, conn)
}

func TestAKeptConnectionIsClosedAtTheIdleTimeout(t *testing.T) {
	limits := patient(16)
	limits.Idle = 20 * time.Millisecond
	d := serveDaemon(t, limits, APIOptions{})
	conn := d.dial(t)
	r := bufio.NewReader(conn)
	if status, err := d.get(t, conn, r); err != nil || status != http.StatusOK {
		t.Fatalf("GET /health = %d, %v", status, err)
	}
	waitClosed(t, r)
}

func TestABodyThatStallsIsRefusedAtItsDeadline(t *testing.T) {
	limits := patient(16)
	limits.Read = 20 * time.Millisecond
	d := serveDaemon(t, limits, APIOptions{})
	conn := d.dial(t)
	fmt.Fprintf(conn, "POST /sessions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"workspace\"", d.addr, testToken)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer to a body that stalls: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "did not arrive in time") || !strings.Contains(string(body), albedo.EInvalid) {
		t.Errorf("answer = %d %s, want 400 %s saying the body did not arrive in time", resp.StatusCode, body, albedo.EInvalid)
	}
	waitClosed(t, r)
}

func TestAStreamOutlivesEveryTimeout(t *testing.T) {
	// The head has a minute to arrive, so a slow machine cannot refuse the
	// request itself; the whole-request and idle deadlines are long past by
	// the time the stream's first heartbeat is written.
	d := serveDaemon(t, serverLimits{ReadHeader: time.Minute, Read: 5 * time.Millisecond, Idle: 5 * time.Millisecond, MaxConns: 16},
		APIOptions{Heartbeat: 10 * time.Millisecond})
	sess, err := d.svc.CreateSession(t.Context(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	conn := d.dial(t)
	fmt.Fprintf(conn, "GET /sessions/%s/stream HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", sess.ID, d.addr, testToken)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stream = %v, %v", resp, err)
	}
	body := bufio.NewReader(resp.Body)
	readDataLine(t, body)
	// Twenty heartbeats take forty times the longest timeout.
	for pings := 0; pings < 20; {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %d heartbeats: %v", pings, err)
		}
		if strings.TrimSpace(line) == ": ping" {
			pings++
		}
	}
}

// openConns reports how many connections the limiter holds open.
func (d daemonServer) openConns() int {
	d.limiter.mu.Lock()
	defer d.limiter.mu.Unlock()
	return d.limiter.open
}

func TestStrangersCannotCrowdOutTheToken(t *testing.T) {
	const max = 8
	d := serveDaemon(t, patient(max), APIOptions{})
	// Many times the cap of connections that never finish their head, and
	// of strangers whose requests were refused: neither ends by itself
	// within the test.
	for i := range 5 * max {
		conn := d.dial(t)
		if i%2 == 0 {
			io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: ")
		} else {
			fmt.Fprintf(conn, "GET /health HTTP/1.1\r\nHost: %s\r\n\r\n", d.addr)
		}
	}
	conn := d.dial(t)
	if status, err := d.get(t, conn, bufio.NewReader(conn)); err != nil || status != http.StatusOK {
		t.Fatalf("an authorised request among %d strangers = %d, %v", 5*max, status, err)
	}
	if n := d.openConns(); n > max {
		t.Errorf("%d connections open, over the cap of %d", n, max)
	}
}

func TestTrustedConnectionsKeepTheirPlaces(t *testing.T) {
	const max = 4
	d := serveDaemon(t, patient(max), APIOptions{})
	type kept struct {
		conn net.Conn
		r    *bufio.Reader
	}
	var trusted []kept
	for range max {
		conn := d.dial(t)
		k := kept{conn, bufio.NewReader(conn)}
		if status, err := d.get(t, k.conn, k.r); err != nil || status != http.StatusOK {
			t.Fatalf("GET /health = %d, %v", status, err)
		}
		trusted = append(trusted, k)
	}
	stranger := d.dial(t)
	io.WriteString(stranger, "GET /health HTTP/1.1\r\n")
	waitClosed(t, stranger)
	for i, k := range trusted {
		if status, err := d.get(t, k.conn, k.r); err != nil || status != http.StatusOK {
			t.Errorf("trusted connection %d after a stranger came: %d, %v", i, status, err)
		}
	}
	if n := d.openConns(); n != max {
		t.Errorf("%d connections open, want the %d trusted ones", n, max)
	}
}
