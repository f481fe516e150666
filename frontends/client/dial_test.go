package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/frontends/home"
)

// fakeDaemonEnv makes the test binary, started as "albedo daemon", play
// a daemon (see TestMain).
const fakeDaemonEnv = "CLIENT_TEST_FAKE_DAEMON"

func TestMain(m *testing.M) {
	if os.Getenv(fakeDaemonEnv) == "1" {
		os.Exit(playDaemon())
	}
	os.Exit(m.Run())
}

// playDaemon serves GET /health, publishes daemon.json in ALBEDO_HOME,
// says so on the ready descriptor its command line names, and serves
// until a minute passed or its home is gone.
func playDaemon() int {
	fd := -1
	for _, arg := range os.Args[1:] {
		var n int
		if _, err := fmt.Sscanf(arg, "--"+ReadyFlag+"=%d", &n); err == nil {
			fd = n
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	}))
	dir := os.Getenv("ALBEDO_HOME")
	data, _ := json.Marshal(home.Connection{PID: os.Getpid(), Port: ln.Addr().(*net.TCPAddr).Port, Token: "t"})
	if err := os.WriteFile(filepath.Join(dir, home.ConnectionFile), data, 0o600); err != nil {
		return 1
	}
	if fd >= 0 {
		f := os.NewFile(uintptr(fd), "ready")
		f.Write([]byte{1})
		f.Close()
	}
	for range 600 {
		if _, err := os.Stat(dir); err != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0
}

// TestDialConnectsOnceTheNewDaemonSaysItServes: a command that starts a
// daemon learns through the ready pipe that it serves, and connects
// without waiting for its next look (here an hour away).
func TestDialConnectsOnceTheNewDaemonSaysItServes(t *testing.T) {
	t.Setenv(fakeDaemonEnv, "1")
	dir := t.TempDir()
	t.Cleanup(func() {
		if conn, err := home.ReadConnection(dir); err == nil {
			if p, err := os.FindProcess(conn.PID); err == nil {
				p.Kill()
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, DialOptions{Home: dir, Binary: os.Args[0], Timeout: time.Hour, firstPoll: time.Hour})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	conn, err := home.ReadConnection(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strconv.Itoa(c.conn.Port); got != strconv.Itoa(conn.Port) {
		t.Errorf("connected to port %s, daemon.json names %d", got, conn.Port)
	}
}
