package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
)

const testToken = "test-token"

// newTestAPI serves the API over an in-memory service.
func newTestAPI(t *testing.T) (*httptest.Server, *engine.Service) {
	t.Helper()
	return newTestAPIOn(t, memstore.New())
}

// newTestAPIOn serves the API over a service on store whose model answers
// "hi".
func newTestAPIOn(t *testing.T, store albedo.Store) (*httptest.Server, *engine.Service) {
	t.Helper()
	return newTestAPIWith(t, store, APIOptions{})
}

// newTestAPIWith serves the API of opts, with testToken, over a service on
// store whose model answers "hi".
func newTestAPIWith(t *testing.T, store albedo.Store, opts APIOptions) (*httptest.Server, *engine.Service) {
	t.Helper()
	svc := newTestService(t, store)
	opts.Service, opts.Token = svc, testToken
	srv := serveAPI(opts)
	t.Cleanup(srv.Close)
	return srv, svc
}

// newTestService returns a service on store whose model answers "hi",
// closed when the test ends.
func newTestService(t *testing.T, store albedo.Store) *engine.Service {
	t.Helper()
	cfg := fakes.NewConfig("fixture", albedo.ProviderConfig{Name: "fixture", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Protocol: albedo.ProtocolChatCompletions})
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{},
		Store:    store,
		Provider: fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply { return fakes.Text("hi") }),
		Kernel:   fakes.NewKernel(),
		Config:   cfg,
	})
	t.Cleanup(func() { svc.Close(context.Background()) })
	return svc
}

// serveAPI serves the API of opts on a port of 127.0.0.1, which it sets as
// opts.Port.
func serveAPI(opts APIOptions) *httptest.Server {
	srv := httptest.NewUnstartedServer(nil)
	_, opts.Port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	srv.Config.Handler = NewHandler(opts)
	srv.Start()
	return srv
}

func call(t *testing.T, srv *httptest.Server, method, path, body string, headers map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestGuardRefusesStrangers(t *testing.T) {
	srv, _ := newTestAPI(t)
	auth := "Bearer " + testToken
	tests := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"not bearer", map[string]string{"Authorization": testToken}, http.StatusUnauthorized},
		{"foreign origin", map[string]string{"Authorization": auth, "Origin": "https://example.com"}, http.StatusForbidden},
		{"own origin", map[string]string{"Authorization": auth, "Origin": srv.URL}, http.StatusOK},
		{"no origin", map[string]string{"Authorization": auth}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := call(t, srv, http.MethodGet, "/health", "", tt.headers)
			if code != tt.want {
				t.Fatalf("status = %d, want %d (%v)", code, tt.want, body)
			}
			if code != http.StatusOK && (body["error"] == "" || body["code"] == "") {
				t.Errorf("error body = %v, want error and code", body)
			}
		})
	}
}

func TestBadBodiesAreClear400s(t *testing.T) {
	srv, _ := newTestAPI(t)
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	tests := []struct {
		name, body, want string
	}{
		{"malformed", `{"workspace":`, "malformed JSON"},
		{"wrong type", `{"workspace": 7}`, `"workspace" must be a string`},
		{"empty", ``, "must be a JSON object"},
		{"relative", `{"workspace":"here"}`, "not an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := call(t, srv, http.MethodPost, "/sessions", tt.body, auth)
			if code != http.StatusBadRequest || !strings.Contains(body["error"].(string), tt.want) {
				t.Errorf("POST /sessions %s = %d %v, want 400 mentioning %q", tt.body, code, body, tt.want)
			}
		})
	}
	code, list := call(t, srv, http.MethodGet, "/sessions", "", auth)
	if code != http.StatusOK || len(list) != 0 {
		t.Errorf("sessions after bad requests = %d %v", code, list)
	}
}

// TestOversizedBodiesAre413s checks that a body declared larger than the
// limit is refused before a byte of it is sent, and that one that turns out
// larger is refused once read that far.
func TestOversizedBodiesAre413s(t *testing.T) {
	srv, _ := newTestAPI(t)
	t.Run("declared", func(t *testing.T) {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /sessions/s1/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", srv.Listener.Addr(), testToken, int64(maxBody)+1)
		// No body follows: the answer must come all the same.
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || body["code"] != albedo.ETooLarge {
			t.Errorf("answer = %d %v, want 413 %s", resp.StatusCode, body, albedo.ETooLarge)
		}
	})
	t.Run("undeclared", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/sessions", io.MultiReader(strings.NewReader(`{"workspace":"`), strings.NewReader(strings.Repeat("a", maxBody))))
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = -1 // chunked: the size is not known up front
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("status = %d, want 413", resp.StatusCode)
		}
	})
}

func TestStatusOfEveryCode(t *testing.T) {
	tests := map[string]int{
		albedo.EInvalid: 400, albedo.ENoProvider: 400, albedo.EUnauthorized: 401, albedo.EForbidden: 403,
		albedo.ENotFound: 404, albedo.EConflict: 409, albedo.EBusy: 409, albedo.EWorkspaceMissing: 409,
		albedo.EWorkspaceRejected: 409, albedo.EImageMismatch: 409, albedo.EConfig: 409,
		albedo.EStale: 412, albedo.ERevisionRequired: 428, albedo.EProvider: 502, wire.CodeMethodNotAllowed: 405, albedo.EInternal: 500, "unheard-of": 500,
		albedo.ETooLarge: 413, albedo.EStoreUnavailable: 503, albedo.ELeaseLost: 409,
	}
	for code, want := range tests {
		if got := statusOf(code); got != want {
			t.Errorf("statusOf(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestWorkspaceMissingCarriesTheOldPath(t *testing.T) {
	srv, svc := newTestAPI(t)
	dir := t.TempDir() + "/ws"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sess, err := svc.CreateSession(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	code, body := call(t, srv, http.MethodPost, "/sessions/"+sess.ID+"/events", `{"content":"hi"}`, map[string]string{"Authorization": "Bearer " + testToken})
	if code != http.StatusConflict || body["code"] != albedo.EWorkspaceMissing || body["workspace"] != dir {
		t.Errorf("send to a missing workspace = %d %v", code, body)
	}
}

// newStreamAPI serves the API over an in-memory service whose provider is
// p, with the given heartbeat.
func newStreamAPI(t *testing.T, p *fakes.Provider, heartbeat time.Duration) (*httptest.Server, *engine.Service) {
	t.Helper()
	cfg := fakes.NewConfig("fixture", albedo.ProviderConfig{Name: "fixture", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Protocol: albedo.ProtocolChatCompletions})
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: memstore.New(), Provider: p, Kernel: fakes.NewKernel(), Config: cfg})
	srv := serveAPI(APIOptions{Service: svc, Token: testToken, Heartbeat: heartbeat})
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), streamWait)
		defer cancel()
		svc.Close(ctx)
	})
	return srv, svc
}

// streamWait bounds every wait of the stream tests; generous on purpose.
const streamWait = 20 * time.Second

// openStream opens a session's event stream; cancel closes it.
func openStream(t *testing.T, srv *httptest.Server, id string) (*bufio.Reader, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), streamWait)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sessions/"+id+"/stream", nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		resp.Body.Close()
		t.Fatalf("stream status = %d", resp.StatusCode)
	}
	return bufio.NewReader(resp.Body), func() {
		cancel()
		resp.Body.Close()
	}
}

// readDataLine reads up to the first data line and returns its payload.
func readDataLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before a data line: %v", err)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return strings.TrimSpace(data)
		}
	}
}

func TestStreamSendsHeartbeats(t *testing.T) {
	srv, svc := newStreamAPI(t, fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply { return fakes.Text("hi") }), 50*time.Millisecond)
	sess, err := svc.CreateSession(context.Background(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	r, closeStream := openStream(t, srv, sess.ID)
	defer closeStream()
	var first struct {
		Events []json.RawMessage `json:"events"`
	}
	if data := readDataLine(t, r); json.Unmarshal([]byte(data), &first) != nil || first.Events == nil {
		t.Fatalf("first data line = %q, want a snapshot {\"events\": [...]}", data)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before a heartbeat: %v", err)
		}
		if strings.TrimRight(line, "\r\n") == ": ping" {
			return
		}
	}
}

func TestStreamClientLeavingMidTurnLeavesTheTurnAlone(t *testing.T) {
	p := fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply { return fakes.Text("the answer") })
	gate := fakes.NewGate()
	p.SetGate(gate)
	srv, svc := newStreamAPI(t, p, 0)
	ctx, cancel := context.WithTimeout(context.Background(), streamWait)
	defer cancel()
	sess, err := svc.CreateSession(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	if queued, err := svc.Send(ctx, sess.ID, albedo.Message{Text: "question"}); err != nil || queued {
		t.Fatalf("send = %v, %v; want a new turn", queued, err)
	}
	select {
	case <-gate.Entered():
	case <-ctx.Done():
		t.Fatal("the model request never reached the gate")
	}

	r, closeStream := openStream(t, srv, sess.ID)
	if data := readDataLine(t, r); !strings.Contains(data, "question") {
		t.Errorf("snapshot mid-turn = %s, want the user message", data)
	}
	closeStream()

	gate.Open()
	if err := svc.Wait(ctx, sess.ID); err != nil {
		t.Fatalf("wait for the turn: %v", err)
	}
	items, err := svc.History(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var answers, markers []string
	for _, it := range items {
		switch it.Kind {
		case albedo.KindAssistant:
			answers = append(answers, it.Text)
		case albedo.KindTurn:
			markers = append(markers, it.Text)
		case albedo.KindError:
			t.Errorf("transcript holds an error: %q", it.Text)
		}
	}
	if len(answers) != 1 || answers[0] != "the answer" {
		t.Fatalf("assistant items = %q, want [\"the answer\"]", answers)
	}
	if len(markers) != 1 || markers[0] != albedo.TurnFinished {
		t.Errorf("turn markers = %q, want [%q]", markers, albedo.TurnFinished)
	}
}
