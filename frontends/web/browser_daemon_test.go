package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/fixtures/fakemodel"
	"github.com/albedo-agent/albedo/frontends/home"
)

// albedoProcess is a daemon of the built binary over a fake model, on a
// home, a workspace and a port of its own, started through the CLI as a
// user's command starts it.
type albedoProcess struct {
	t         *testing.T
	bin       string
	home      string
	workspace string
	userHome  string
	port      int
	conn      home.Connection
	model     *fakemodel.Server
}

// startAlbedo starts a daemon whose model answers with script.
func startAlbedo(t *testing.T, script func(n int, req fakemodel.Request) fakemodel.Reply) *albedoProcess {
	t.Helper()
	bin := os.Getenv("ALBEDO_TEST_BINARY")
	if bin == "" {
		bin = "../../bin/albedo"
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no albedo binary (build it with scripts/build.sh or name it by ALBEDO_TEST_BINARY): %v", err)
	}
	root := t.TempDir()
	a := &albedoProcess{t: t, bin: bin, home: filepath.Join(root, "home"), workspace: filepath.Join(root, "workspace"), userHome: filepath.Join(root, "user"), port: freePort(t)}
	for _, dir := range []string{a.home, a.workspace, a.userHome} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	a.model = fakemodel.Start(script)
	t.Cleanup(a.model.Close)
	if err := a.model.WriteConfig(a.home); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.home, "extensions.json"), []byte(`{"models": {"refreshHours": 0}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	a.start()
	t.Cleanup(a.stop)
	return a
}

// freePort returns a port of 127.0.0.1 free now: the daemon comes back
// at the same one after a restart.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// cli runs albedo with args and returns its stdout.
func (a *albedoProcess) cli(args ...string) string {
	a.t.Helper()
	cmd := exec.Command(a.bin, args...)
	cmd.Env = append(os.Environ(), "ALBEDO_HOME="+a.home, "HOME="+a.userHome, "ALBEDO_PORT="+strconv.Itoa(a.port),
		"ALBEDO_PARENT_PID="+strconv.Itoa(os.Getpid()), "ALBEDO_TOKEN=", "ALBEDO_API_KEY=", "ALBEDO_STORE_URL=", "BROWSER=")
	cmd.Dir = a.workspace
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		a.t.Fatalf("albedo %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// start starts the daemon through the CLI and reads where it serves.
func (a *albedoProcess) start() {
	a.t.Helper()
	a.cli("sessions")
	conn, err := home.ReadConnection(a.home)
	if err != nil {
		a.t.Fatal(err)
	}
	if conn.Port != a.port {
		a.t.Fatalf("the daemon serves port %d, not ALBEDO_PORT %d", conn.Port, a.port)
	}
	a.conn = conn
}

// stop shuts the daemon down, and kills it if it does not end.
func (a *albedoProcess) stop() {
	if a.conn.PID == 0 {
		return
	}
	if _, err := a.request("POST", "/shutdown", "{}", nil); err == nil && gone(a.conn.PID, 10*time.Second) {
		return
	}
	syscall.Kill(a.conn.PID, syscall.SIGKILL)
	gone(a.conn.PID, 10*time.Second)
}

// crash kills the daemon with SIGKILL and waits until it is gone.
func (a *albedoProcess) crash() {
	a.t.Helper()
	if err := syscall.Kill(a.conn.PID, syscall.SIGKILL); err != nil {
		a.t.Fatal(err)
	}
	if !gone(a.conn.PID, 10*time.Second) {
		a.t.Fatalf("daemon %d outlived SIGKILL", a.conn.PID)
	}
}

// gone waits until process pid has ended (it is no child of the test's:
// its end is looked for), at most limit, and reports whether it ended.
func gone(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		// A zombie has ended; only its parent's wait is left.
		if err != nil || strings.Contains(string(data), ") Z ") {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// base is the daemon's address as the page has it.
func (a *albedoProcess) base() string { return "http://127.0.0.1:" + strconv.Itoa(a.port) }

// loginURL asks the CLI for the one-time address.
func (a *albedoProcess) loginURL() string {
	a.t.Helper()
	url := strings.TrimSpace(a.cli("web", "--print-url"))
	if !strings.HasPrefix(url, a.base()+"/web/login?ticket=") {
		a.t.Fatalf("albedo web --print-url printed %q", url)
	}
	return url
}

// request sends an API request with the bearer token.
func (a *albedoProcess) request(method, path, body string, headers map[string]string) ([]byte, error) {
	req, err := http.NewRequest(method, a.base()+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.conn.Token)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return data, &httpError{resp.StatusCode, string(data)}
	}
	return data, err
}

// api sends an API request and decodes the answer into out.
func (a *albedoProcess) api(method, path, body string, out any) {
	a.t.Helper()
	data, err := a.request(method, path, body, nil)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			a.t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
}

// newSession makes a session in the workspace and returns its id.
func (a *albedoProcess) newSession() string {
	a.t.Helper()
	var s struct{ ID string }
	body, _ := json.Marshal(map[string]string{"workspace": a.workspace})
	a.api("POST", "/sessions", string(body), &s)
	return s.ID
}

// historySeqs returns the seqs of a session's history items the stream
// shows (every kind but tool_image).
func (a *albedoProcess) historySeqs(id string) []int64 {
	a.t.Helper()
	var h struct {
		Items []struct {
			Seq  int64
			Kind string
		}
	}
	a.api("GET", "/sessions/"+id+"/history", "", &h)
	var out []int64
	for _, it := range h.Items {
		if it.Kind != "tool_image" {
			out = append(out, it.Seq)
		}
	}
	return out
}

// release creates name in the workspace: the cells of the tests wait
// for such files.
func (a *albedoProcess) release(name string) {
	a.t.Helper()
	if err := os.WriteFile(filepath.Join(a.workspace, name), nil, 0o644); err != nil {
		a.t.Fatal(err)
	}
}

type httpError struct {
	status int
	body   string
}

func (e *httpError) Error() string { return strconv.Itoa(e.status) + " " + e.body }
