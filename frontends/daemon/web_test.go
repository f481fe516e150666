package daemon

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/web"
)

// testClock is a clock a test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// webServer serves the API with logins on a test clock.
func webServer(t *testing.T) (*httptest.Server, *testClock) {
	t.Helper()
	clock := &testClock{now: time.Unix(1_800_000_000, 0)}
	logins, err := web.NewLogins(web.LoginOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newTestAPIWith(t, memstore.New(), APIOptions{Logins: logins})
	return srv, clock
}

// webRequest is one request of a test: what it sends and with what.
type webRequest struct {
	method, path, body string
	host               string
	headers            map[string]string
}

// send sends r to srv without following redirects.
func send(t *testing.T, srv *httptest.Server, r webRequest) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.host != "" {
		req.Host = r.host
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

// ticket asks srv for a login ticket with the bearer token and returns
// the path that redeems it.
func ticket(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	resp, body := send(t, srv, webRequest{method: "POST", path: "/web/tickets", headers: map[string]string{"Authorization": "Bearer " + testToken}})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /web/tickets = %d %s", resp.StatusCode, body)
	}
	var tk struct {
		Ticket, Path string
	}
	if err := json.Unmarshal([]byte(body), &tk); err != nil || tk.Ticket == "" || !strings.HasPrefix(tk.Path, "/web/login?ticket=") {
		t.Fatalf("ticket answer %s", body)
	}
	return tk.Path
}

// login redeems a fresh ticket and returns the Cookie header it earns.
func login(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	resp, body := send(t, srv, webRequest{method: "GET", path: ticket(t, srv)})
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(cookies) != 1 {
		t.Fatalf("login = %d with %d cookies: %s", resp.StatusCode, len(cookies), body)
	}
	return cookies[0].Name + "=" + cookies[0].Value
}

func TestATicketLogsInOnceAndBriefly(t *testing.T) {
	srv, clock := webServer(t)
	fresh := ticket(t, srv)
	used := ticket(t, srv)
	send(t, srv, webRequest{method: "GET", path: used})
	expired := ticket(t, srv)
	revoked := ticket(t, srv)
	tests := []struct {
		name    string
		path    string
		advance time.Duration
		revoke  bool
		want    int
	}{
		{"a fresh ticket", fresh, 0, false, http.StatusSeeOther},
		{"the same ticket again", fresh, 0, false, http.StatusUnauthorized},
		{"a ticket used before", used, 0, false, http.StatusUnauthorized},
		{"a ticket past its lifetime", expired, web.TicketLife, false, http.StatusUnauthorized},
		{"a ticket never issued", "/web/login?ticket=" + strings.Repeat("a", 64), 0, false, http.StatusUnauthorized},
		{"no ticket", "/web/login", 0, false, http.StatusUnauthorized},
		{"a ticket issued before every login was revoked", revoked, 0, true, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock.Add(tt.advance)
			if tt.revoke {
				resp, body := send(t, srv, webRequest{method: "POST", path: "/web/revoke", headers: map[string]string{"Authorization": "Bearer " + testToken}})
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("revoke = %d %s", resp.StatusCode, body)
				}
			}
			resp, body := send(t, srv, webRequest{method: "GET", path: tt.path})
			if resp.StatusCode != tt.want {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", resp.Header.Get("Cache-Control"))
			}
			cookies := resp.Cookies()
			if tt.want != http.StatusSeeOther {
				if len(cookies) != 0 {
					t.Errorf("a refused ticket set cookies %v", cookies)
				}
				if !strings.Contains(body, "albedo web") || strings.Contains(body, "<script") {
					t.Errorf("a refused ticket does not get only how to log in:\n%s", body)
				}
				return
			}
			if loc := resp.Header.Get("Location"); loc != "/web/" {
				t.Errorf("Location = %q, want /web/ (no ticket in the address)", loc)
			}
			if len(cookies) != 1 {
				t.Fatalf("cookies = %v, want one", cookies)
			}
			c := cookies[0]
			_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
			if c.Name != "albedo-"+port || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge <= 0 {
				t.Errorf("cookie = %+v, want albedo-%s, HttpOnly, SameSite=Strict, Path=/, lasting", c, port)
			}
			if strings.Contains(c.Value, testToken) {
				t.Error("the cookie holds the bearer token")
			}
		})
	}
}

func TestTheTicketRouteWantsTheToken(t *testing.T) {
	srv, _ := webServer(t)
	cookie := login(t, srv)
	for _, path := range []string{"/web/tickets", "/web/revoke", "/shutdown"} {
		resp, body := send(t, srv, webRequest{method: "POST", path: path, body: "{}",
			headers: map[string]string{"Cookie": cookie, "Origin": srv.URL, "Content-Type": "application/json"}})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST %s with the page's cookie = %d, want 401: %s", path, resp.StatusCode, body)
		}
	}
}

func TestTheCookieGuards(t *testing.T) {
	srv, clock := webServer(t)
	own := srv.URL
	addr := strings.TrimPrefix(own, "http://")
	_, port, _ := strings.Cut(addr, ":")
	workspace := `{"workspace": ` + mustJSON(t, t.TempDir()) + `}`
	jsonType := "application/json"
	tests := []struct {
		name string
		// cookie: "valid", "revoked", "expired", "forged" or "".
		cookie string
		req    webRequest
		want   int
	}{
		{"a read with the cookie", "valid", webRequest{method: "GET", path: "/sessions"}, http.StatusOK},
		{"a read without cookie or token", "", webRequest{method: "GET", path: "/sessions"}, http.StatusUnauthorized},
		{"a stream without cookie or token", "", webRequest{method: "GET", path: "/sessions/x/stream"}, http.StatusUnauthorized},
		{"a rebound Host with the cookie", "valid", webRequest{method: "GET", path: "/sessions", host: "attacker.example:" + port}, http.StatusForbidden},
		{"a rebound Host with the token", "", webRequest{method: "GET", path: "/sessions", host: "attacker.example:" + port, headers: map[string]string{"Authorization": "Bearer " + testToken}}, http.StatusForbidden},
		{"a rebound Host asking for the page", "valid", webRequest{method: "GET", path: "/web/", host: "attacker.example:" + port}, http.StatusForbidden},
		{"a rebound Host redeeming a ticket", "", webRequest{method: "GET", path: "/web/login?ticket=x", host: "attacker.example:" + port}, http.StatusForbidden},
		{"the page's own write", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Origin": own, "Content-Type": jsonType}}, http.StatusCreated},
		{"a same-origin write without Origin", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Sec-Fetch-Site": "same-origin", "Content-Type": jsonType}}, http.StatusCreated},
		{"a write from a foreign Origin", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Origin": "https://attacker.example", "Content-Type": jsonType}}, http.StatusForbidden},
		{"a write from the daemon's other name", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Origin": "http://localhost:" + port, "Content-Type": jsonType}}, http.StatusForbidden},
		{"a write from another loopback port", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Origin": "http://127.0.0.1:1", "Content-Type": jsonType}}, http.StatusForbidden},
		{"a write saying neither Origin nor Sec-Fetch-Site", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Content-Type": jsonType}}, http.StatusForbidden},
		{"a write from another site by Sec-Fetch-Site", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": jsonType}}, http.StatusForbidden},
		{"a write from a sibling site by Sec-Fetch-Site", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Origin": own, "Sec-Fetch-Site": "same-site", "Content-Type": jsonType}}, http.StatusForbidden},
		{"a form body", "valid", webRequest{method: "POST", path: "/sessions", body: "workspace=/tmp", headers: map[string]string{"Origin": own, "Content-Type": "application/x-www-form-urlencoded"}}, http.StatusForbidden},
		{"a text body", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Origin": own, "Content-Type": "text/plain"}}, http.StatusForbidden},
		{"a body of no type", "valid", webRequest{method: "POST", path: "/sessions", body: workspace, headers: map[string]string{"Origin": own}}, http.StatusForbidden},
		{"a delete of a vent without Origin", "valid", webRequest{method: "DELETE", path: "/extensions/paperclips/items/1", headers: map[string]string{"Content-Type": jsonType}}, http.StatusForbidden},
		{"a route for programs only", "valid", webRequest{method: "POST", path: "/sessions/x/workspace", body: `{"workspace": "/tmp"}`, headers: map[string]string{"Origin": own, "Content-Type": jsonType}}, http.StatusUnauthorized},
		{"an unknown path with the cookie", "valid", webRequest{method: "GET", path: "/nowhere"}, http.StatusUnauthorized},
		{"a revoked cookie", "revoked", webRequest{method: "GET", path: "/sessions"}, http.StatusUnauthorized},
		{"an expired cookie", "expired", webRequest{method: "GET", path: "/sessions"}, http.StatusUnauthorized},
		{"a forged cookie", "forged", webRequest{method: "GET", path: "/sessions"}, http.StatusUnauthorized},
		{"the page without a cookie shows how to log in", "", webRequest{method: "GET", path: "/web/"}, http.StatusUnauthorized},
		{"the page with a revoked cookie shows how to log in", "revoked", webRequest{method: "GET", path: "/web/"}, http.StatusUnauthorized},
		{"the page with the cookie", "valid", webRequest{method: "GET", path: "/web/"}, http.StatusOK},
		{"the page's script, open", "", webRequest{method: "GET", path: "/web/assets/app.js"}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{}
			for k, v := range tt.req.headers {
				headers[k] = v
			}
			switch tt.cookie {
			case "valid":
				headers["Cookie"] = login(t, srv)
			case "revoked":
				headers["Cookie"] = login(t, srv)
				send(t, srv, webRequest{method: "POST", path: "/web/revoke", headers: map[string]string{"Authorization": "Bearer " + testToken}})
			case "expired":
				headers["Cookie"] = login(t, srv)
				clock.Add(web.CookieLife)
			case "forged":
				name, value, _ := strings.Cut(login(t, srv), "=")
				parts := strings.Split(value, ".")
				parts[1] = "9999999999" // a later expiry under the old signature
				headers["Cookie"] = name + "=" + strings.Join(parts, ".")
			}
			tt.req.headers = headers
			resp, body := send(t, srv, tt.req)
			if resp.StatusCode != tt.want {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if resp.StatusCode == http.StatusUnauthorized && tt.req.path == "/web/" && (strings.Contains(body, "<script") || !strings.Contains(body, "albedo web")) {
				t.Errorf("without a login the page shows more than how to log in:\n%s", body)
			}
			if resp.StatusCode == http.StatusOK && tt.req.path == "/web/" && !strings.Contains(body, `src="/web/assets/app.js"`) {
				t.Errorf("with a login the page lacks its script:\n%s", body)
			}
		})
	}
}

func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	srv, _ := webServer(t)
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	for _, r := range []webRequest{
		{method: "GET", path: "/web/"},
		{method: "GET", path: "/web/assets/style.css"},
		{method: "GET", path: "/health", headers: map[string]string{"Authorization": "Bearer " + testToken}},
		{method: "GET", path: "/health"},
		{method: "GET", path: "/web/", host: "attacker.example:" + port},
	} {
		resp, _ := send(t, srv, r)
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s %s (%d): CSP %q lacks %q", r.method, r.path, resp.StatusCode, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Errorf("%s: CSP %q allows unsafe sources", r.path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s %s: nosniff %q, referrer %q, frame %q", r.method, r.path, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"), h.Get("X-Frame-Options"))
		}
	}
}

func TestThePageHoldsNoInlineScriptNorToken(t *testing.T) {
	srv, _ := webServer(t)
	cookie := login(t, srv)
	script := regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`)
	inline := regexp.MustCompile(`(?i)\son[a-z]+\s*=|\sstyle\s*=|javascript:`)
	for _, name := range []string{"app.html", "login.html"} {
		data, _, ok := web.Asset(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		for _, m := range script.FindAllSubmatch(data, -1) {
			if !strings.Contains(string(m[1]), "src=") || strings.TrimSpace(string(m[2])) != "" {
				t.Errorf("%s holds an inline script: %q", name, m[0])
			}
		}
		if m := inline.Find(data); m != nil {
			t.Errorf("%s holds an inline handler or style: %q", name, m)
		}
	}
	_, body := send(t, srv, webRequest{method: "GET", path: "/web/", headers: map[string]string{"Cookie": cookie}})
	if strings.Contains(body, testToken) || strings.Contains(cookie, testToken) {
		t.Error("the page or its cookie holds the bearer token")
	}
}

func TestRenderShowsRawHTMLAsText(t *testing.T) {
	srv, _ := webServer(t)
	cookie := login(t, srv)
	body := `{"texts": ["# Title", "see <img src=x onerror=alert(1)> and <script>alert(2)</script>"]}`
	resp, out := send(t, srv, webRequest{method: "POST", path: "/web/render", body: body,
		headers: map[string]string{"Cookie": cookie, "Origin": srv.URL, "Content-Type": "application/json"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("render = %d %s", resp.StatusCode, out)
	}
	var r struct{ HTML []string }
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.HTML) != 2 {
		t.Fatalf("render answered %s", out)
	}
	if !strings.Contains(r.HTML[0], "<h1>Title</h1>") || strings.Contains(r.HTML[1], "<img") || strings.Contains(r.HTML[1], "<script") {
		t.Errorf("rendered %q", r.HTML)
	}
	if _, err := url.Parse(srv.URL); err != nil {
		t.Fatal(err)
	}
}
