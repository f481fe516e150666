package daemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/memstore"
)

// rawWait bounds how long a test waits for the daemon over a raw
// connection: a daemon that waits for more of the request never answers.
const rawWait = 20 * time.Second

// sendRaw writes head, the head of a request with no body after it, to
// the server at addr and reads the answer. With checkClosed it then waits
// for the server to close the connection, and reports whether it did.
func sendRaw(t *testing.T, addr, head string, checkClosed bool) (status int, body map[string]any, closed bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(rawWait))
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer to a request whose body never comes: %v", err)
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&body)
	io.Copy(io.Discard, resp.Body)
	if !checkClosed {
		return resp.StatusCode, body, false
	}
	_, err = r.ReadByte()
	return resp.StatusCode, body, err == io.EOF
}

func TestGuardAnswersOnlyItsOwnHost(t *testing.T) {
	srv, _ := newTestAPIWith(t, memstore.New(), APIOptions{AllowedHosts: []string{"albedo.tunnel:8443", " Laptop.Local "}})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	auth := "Authorization: Bearer " + testToken + "\r\n"
	tests := []struct {
		name, head string
		want       int
	}{
		{"127.0.0.1", "GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + auth + "\r\n", http.StatusOK},
		{"localhost", "GET /health HTTP/1.1\r\nHost: localhost:" + port + "\r\n" + auth + "\r\n", http.StatusOK},
		{"localhost in capitals", "GET /health HTTP/1.1\r\nHost: LocalHost:" + port + "\r\n" + auth + "\r\n", http.StatusOK},
		{"[::1]", "GET /health HTTP/1.1\r\nHost: [::1]:" + port + "\r\n" + auth + "\r\n", http.StatusOK},
		{"an allowed tunnel", "GET /health HTTP/1.1\r\nHost: albedo.tunnel:8443\r\n" + auth + "\r\n", http.StatusOK},
		{"an allowed name without port", "GET /health HTTP/1.1\r\nHost: laptop.local\r\n" + auth + "\r\n", http.StatusOK},
		{"the allowed tunnel at another port", "GET /health HTTP/1.1\r\nHost: albedo.tunnel:8444\r\n" + auth + "\r\n", http.StatusForbidden},
		{"a rebound name", "GET /health HTTP/1.1\r\nHost: attacker.example:" + port + "\r\n" + auth + "\r\n", http.StatusForbidden},
		{"loopback at another port", "GET /health HTTP/1.1\r\nHost: 127.0.0.1:1\r\n" + auth + "\r\n", http.StatusForbidden},
		{"loopback without port", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "\r\n", http.StatusForbidden},
		{"another address of the machine", "GET /health HTTP/1.1\r\nHost: 192.168.1.20:" + port + "\r\n" + auth + "\r\n", http.StatusForbidden},
		{"no Host at all", "GET /health HTTP/1.0\r\n" + auth + "\r\n", http.StatusForbidden},
		{"a foreign host before a missing token", "GET /health HTTP/1.1\r\nHost: attacker.example:" + port + "\r\n\r\n", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := sendRaw(t, srv.Listener.Addr().String(), tt.head, false)
			if status != tt.want {
				t.Fatalf("status = %d, want %d (%v)", status, tt.want, body)
			}
			if status == http.StatusForbidden {
				msg, _ := body["error"].(string)
				if body["code"] != albedo.EForbidden || !strings.Contains(msg, "ALBEDO_ALLOWED_HOSTS") || !strings.Contains(msg, "127.0.0.1:"+port) {
					t.Errorf("error body = %v, want code %s and a message naming the daemon's address and ALBEDO_ALLOWED_HOSTS", body, albedo.EForbidden)
				}
			}
		})
	}
}

func TestRefusedRequestsAreAnsweredWithoutReadingTheBody(t *testing.T) {
	srv, _ := newTestAPI(t)
	addr := srv.Listener.Addr().String()
	// Each request declares a body that never comes: an answer proves the
	// daemon did not wait for it.
	post := func(headers string, length int64) string {
		return fmt.Sprintf("POST /sessions HTTP/1.1\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", headers, length)
	}
	host := "Host: " + addr + "\r\n"
	auth := "Authorization: Bearer " + testToken + "\r\n"
	tests := []struct {
		name, head string
		want       int
	}{
		{"no token", post(host, 1000), http.StatusUnauthorized},
		{"wrong token", post(host+"Authorization: Bearer nope\r\n", 1000), http.StatusUnauthorized},
		{"no token, a large body", post(host, 10<<20), http.StatusUnauthorized},
		{"a foreign Host", post("Host: attacker.example\r\n"+auth, 1000), http.StatusForbidden},
		{"a foreign Origin", post(host+auth+"Origin: https://attacker.example\r\n", 1000), http.StatusForbidden},
		{"too large", post(host+auth, maxBody+1), http.StatusRequestEntityTooLarge},
		{"chunked without token", "POST /sessions HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, closed := sendRaw(t, addr, tt.head, true)
			if status != tt.want {
				t.Errorf("status = %d, want %d (%v)", status, tt.want, body)
			}
			if !closed {
				t.Error("the connection stayed open after a refusal: the daemon would read the body next")
			}
		})
	}
}
