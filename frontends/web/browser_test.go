package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/fixtures/fakemodel"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The fake model's answers, chosen by the last message it is sent.
const (
	markdownAnswer = "# Plan\n\n| step | state |\n|---|---|\n| tests | green |\n\n```python\nimport os\nprint(os.getcwd())\n```\n\n" +
		"Raw: <img src=x onerror=alert(1)> and <script>alert(2)</script> stay text."
	growingCell = "import asyncio, os\nprint('first', flush=True)\nwhile not os.path.exists('go-1'):\n    await asyncio.sleep(0.02)\n" +
		"print('second', flush=True)\nwhile not os.path.exists('go-2'):\n    await asyncio.sleep(0.02)\n"
	restartCell = "import asyncio, os\nprint('waiting', flush=True)\nwhile not os.path.exists('go-never'):\n    await asyncio.sleep(0.02)\n"
	ventCell    = "await vent('bug', 'the tests are slow', title='slow tests')\n"
)

// lastMessage returns the role and text of the last message of req.
func lastMessage(req fakemodel.Request) (role, text string) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal([]byte(req.LastMessage()), &m)
	var s string
	if json.Unmarshal(m.Content, &s) != nil {
		s = string(m.Content)
	}
	return m.Role, s
}

// script answers the tests' prompts; hold stops a streamed answer
// halfway until closed.
func script(hold <-chan struct{}) func(int, fakemodel.Request) fakemodel.Reply {
	never := make(chan struct{})
	return func(_ int, req fakemodel.Request) fakemodel.Reply {
		role, text := lastMessage(req)
		switch {
		case strings.Contains(text, "albedo restarted"):
			return fakemodel.Text("finished after restart")
		case role == "tool":
			return fakemodel.Text("the cell is done")
		case strings.Contains(text, "markdown please"):
			return fakemodel.Reply{Text: markdownAnswer, Hold: hold}
		case strings.Contains(text, "run a cell"):
			return fakemodel.Python(growingCell)
		case strings.Contains(text, "wait for restart"):
			return fakemodel.Python(restartCell)
		case strings.Contains(text, "hold on"):
			return fakemodel.Reply{Text: "a long answer that never ends", Hold: never}
		case strings.Contains(text, "file a vent"):
			return fakemodel.Python(ventCell)
		}
		return fakemodel.Text("noted")
	}
}

// login opens the one-time address and waits for the page.
func (tb *tab) login(a *albedoProcess) {
	tb.t.Helper()
	tb.do("log in", chromedp.Navigate(a.loginURL()))
	tb.until("the sessions screen", `document.querySelector('#view[data-state=ready] #sessions') !== null`)
}

// openSession shows session id and waits until its stream is open.
func (tb *tab) openSession(a *albedoProcess, id string) {
	tb.t.Helper()
	tb.do("open the session", chromedp.Navigate(a.base()+"/web/#/s/"+id))
	tb.until("the session's stream open", fmt.Sprintf(`(s => s && s.dataset.id === %q && s.dataset.stream === 'open')(document.querySelector('#session'))`, id))
}

// send types text into the composer and sends it.
func (tb *tab) send(text string) {
	tb.t.Helper()
	tb.do("send "+text, chromedp.SendKeys(chromedp.CSS("#message"), text), chromedp.Click(chromedp.CSS("#send")))
}

// shownSeqs returns the seqs of the stored items the page shows.
func (tb *tab) shownSeqs() []int64 {
	return eval[[]int64](tb, `[...document.querySelectorAll('#items [data-seq]')].map(n => Number(n.dataset.seq))`)
}

// sameItems checks that the page shows exactly the history's items.
func sameItems(t *testing.T, tb *tab, a *albedoProcess, id string) {
	t.Helper()
	shown, stored := tb.shownSeqs(), a.historySeqs(id)
	if !slices.Equal(shown, stored) {
		t.Fatalf("the page shows items %v, the history has %v", shown, stored)
	}
}

func TestBrowserLogsInOnceAndHoldsNoToken(t *testing.T) {
	tb := newTab(t)
	a := startAlbedo(t, script(nil))
	url := a.loginURL()
	tb.do("log in", chromedp.Navigate(url))
	tb.until("the sessions screen", `document.querySelector('#view[data-state=ready] #sessions') !== null`)
	if loc := eval[string](tb, "location.href"); strings.Contains(loc, "ticket") || loc != a.base()+"/web/" {
		t.Errorf("the address after login is %q: the ticket stayed", loc)
	}
	if c := eval[string](tb, "document.cookie"); c != "" {
		t.Errorf("scripts read the cookie %q: it is not HttpOnly", c)
	}
	// The browser keeps the cookies of other daemons of 127.0.0.1 (other
	// tests') beside this one's, named after its port.
	var login *network.Cookie
	for _, c := range browserCookies(tb, a.base()) {
		if strings.Contains(c.Value, a.conn.Token) {
			t.Errorf("cookie %s holds the bearer token", c.Name)
		}
		if c.Name == fmt.Sprintf("albedo-%d", a.port) {
			login = c
		}
	}
	if login == nil || !login.HTTPOnly || login.SameSite != network.CookieSameSiteStrict {
		t.Errorf("login cookie %+v, want albedo-%d, HttpOnly, SameSite=Strict", login, a.port)
	}
	storage := eval[string](tb, `JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])`)
	html := eval[string](tb, "document.documentElement.outerHTML")
	for where, text := range map[string]string{"storage": storage, "the page": html} {
		if strings.Contains(text, a.conn.Token) {
			t.Errorf("%s holds the bearer token", where)
		}
	}
	for _, asset := range []string{"app.js", "api.js", "session.js", "sessions.js", "vents.js", "items.js", "render.js", "dom.js", "paste.js", "style.css"} {
		text := eval[string](tb, fmt.Sprintf(`fetch('/web/assets/%s').then(r => r.text())`, asset))
		if text == "" || strings.Contains(text, a.conn.Token) {
			t.Errorf("asset %s is empty or holds the token", asset)
		}
	}
	// The page's own write works: a new session from its form.
	tb.do("make a session", chromedp.SetValue(chromedp.CSS("#new-workspace"), a.workspace), chromedp.Click(chromedp.CSS("#new-session button")))
	tb.until("the new session", `document.querySelector('#session[data-stream=open]') !== null`)

	// The same address again logs in no one.
	tb.do("reuse the address", chromedp.Navigate(url))
	tb.until("the login help", `document.querySelector('#login') !== null && document.scripts.length === 0`)

	// A browser without the cookie gets how to log in, and the API's 401.
	tb.do("forget the cookie", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{})
		return err
	}), chromedp.Navigate(a.base()+"/web/"))
	if n := eval[int](tb, "document.scripts.length"); n != 0 || !strings.Contains(eval[string](tb, "document.body.innerText"), "albedo web") {
		t.Errorf("without a cookie the page runs %d scripts or does not say how to log in", n)
	}
	if status := eval[int](tb, `fetch('/sessions').then(r => r.status)`); status != 401 {
		t.Errorf("the API answered a browser without cookie %d, want 401", status)
	}
}

// browserCookies returns the browser's cookies for url.
func browserCookies(tb *tab, url string) []*network.Cookie {
	tb.t.Helper()
	var out []*network.Cookie
	tb.do("read the cookies", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
		if err != nil {
			return err
		}
		out = res.Cookies
		return nil
	}))
	return out
}

func TestBrowserShowsATurnLive(t *testing.T) {
	tb := newTab(t)
	hold := make(chan struct{})
	a := startAlbedo(t, script(hold))
	id := a.newSession()
	tb.login(a)
	tb.openSession(a, id)

	// An answer streams as text, then shows rendered.
	tb.send("markdown please")
	tb.until("the answer streaming", `(n => n !== null && n.textContent.includes('Plan'))(document.querySelector('#live .streaming.text'))`)
	if n := eval[int](tb, `document.querySelectorAll('#items li.message').length`); n != 0 {
		t.Fatalf("%d answers shown stored while the answer streams", n)
	}
	close(hold)
	tb.until("the rendered answer", `document.querySelector('#items li.message .answer[data-rendered=true]') !== null`)
	got := eval[map[string]any](tb, `(a => ({
		heading: (a.querySelector('h1') || {}).textContent,
		cells: a.querySelectorAll('table td').length,
		keyword: (a.querySelector('pre.code .hl-keyword') || {}).textContent,
		elements: a.querySelectorAll('img, script, [onerror]').length,
		text: a.textContent,
		streaming: document.querySelectorAll('#live .streaming').length,
	}))(document.querySelector('#items li.message .answer'))`)
	if got["heading"] != "Plan" || got["cells"] != float64(2) || got["keyword"] != "import" {
		t.Errorf("the answer is not rendered markdown (a heading, a table, highlighted code): %v", got)
	}
	if got["elements"] != float64(0) || !strings.Contains(got["text"].(string), "<img src=x onerror=alert(1)>") || !strings.Contains(got["text"].(string), "<script>alert(2)</script>") {
		t.Errorf("raw HTML of the answer is not shown as text: %v", got)
	}
	if got["streaming"] != float64(0) {
		t.Errorf("the streamed text stayed beside the stored answer")
	}

	// A cell's output grows while it runs; a reload then shows exactly
	// the stored items.
	tb.send("run a cell")
	tb.until("the cell's first output", `(p => p !== null && p.textContent === 'first\n')(document.querySelector('#items li.cell[data-status=running] .live-output'))`)
	a.release("go-1")
	tb.until("the cell's output grown", `(p => p !== null && p.textContent === 'first\nsecond\n')(document.querySelector('#items li.cell[data-status=running] .live-output'))`)
	tb.do("reload mid-turn", chromedp.Reload())
	tb.until("the session again", `(s => s !== null && s.dataset.stream === 'open' && s.dataset.running === 'true')(document.querySelector('#session'))`)
	sameItems(t, tb, a, id)
	a.release("go-2")
	tb.until("the cell's result", `(r => r !== null && r.textContent.includes('second'))(document.querySelector('#items li.cell[data-status=ok] .result'))`)
	tb.until("the answer after the cell", `[...document.querySelectorAll('#items li.message')].some(m => m.textContent.includes('the cell is done'))`)
	tb.until("the turn's end", `document.querySelector('#session').dataset.running === 'false'`)
	sameItems(t, tb, a, id)

	// A message sent while a turn runs waits, and can be dropped;
	// interrupt stops the turn.
	tb.send("hold on")
	tb.until("the long answer streaming", `document.querySelector('#live .streaming.text') !== null && !document.querySelector('#interrupt').disabled`)
	tb.send("one more thing")
	tb.until("the message queued", `(q => q !== null && q.textContent.includes('one more thing'))(document.querySelector('#queue li.queued'))`)
	tb.do("drop it", chromedp.Click(chromedp.CSS("#queue li.queued button[data-drop]")))
	tb.until("the message dropped", `document.querySelector('#queue li.queued') === null`)
	tb.do("interrupt", chromedp.Click(chromedp.CSS("#interrupt")))
	tb.until("the turn interrupted", `document.querySelector('#items li.turn[data-status=interrupted]') !== null && document.querySelector('#session').dataset.running === 'false'`)

	// At phone width nothing scrolls sideways and the composer stays in
	// reach.
	tb.do("a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	tb.until("the layout at phone width", `window.innerWidth === 390`)
	fit := eval[map[string]any](tb, `(() => {
		window.scrollTo(0, 0);
		const r = document.querySelector('#message').getBoundingClientRect();
		return {scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth, top: r.top, bottom: r.bottom, height: window.innerHeight};
	})()`)
	if fit["scroll"].(float64) > fit["width"].(float64) {
		t.Errorf("at 390 px the session view scrolls sideways: %v", fit)
	}
	if fit["top"].(float64) < 0 || fit["bottom"].(float64) > fit["height"].(float64) {
		t.Errorf("at 390 px the composer is out of reach at the top of the page: %v", fit)
	}
	tb.do("a desktop", chromedp.EmulateReset())

	// The title renames the session.
	tb.do("rename", chromedp.Click(chromedp.CSS("#rename")), chromedp.SetValue(chromedp.CSS("#rename-input"), "web tests"), chromedp.Click(chromedp.CSS("form.rename button[type=submit]")))
	tb.until("the new name", `(h => h !== null && h.textContent === 'web tests')(document.querySelector('#title'))`)
	var cfg struct{ Name string }
	a.api("GET", "/sessions/"+id+"?view=configuration", "", &cfg)
	if cfg.Name != "web tests" {
		t.Errorf("the session's name is %q after the rename", cfg.Name)
	}

	// A fork opens the new session.
	tb.do("fork at the first message", chromedp.Click(chromedp.CSS(`#items li.user button[data-fork]`)))
	tb.until("the fork", fmt.Sprintf(`(s => s !== null && s.dataset.id !== %q && s.dataset.stream === 'open' && s.querySelector('#items li.user') !== null)(document.querySelector('#session'))`, id))
	if !strings.HasPrefix(eval[string](tb, "location.hash"), "#/s/") {
		t.Error("the fork did not open the new session's address")
	}
}

func TestBrowserResumesAcrossADaemonRestart(t *testing.T) {
	tb := newTab(t)
	a := startAlbedo(t, script(nil))
	t.Cleanup(func() { a.release("go-never") })
	id := a.newSession()
	tb.login(a)
	tb.openSession(a, id)
	tb.send("wait for restart")
	tb.until("the cell running", `(p => p !== null && p.textContent.includes('waiting'))(document.querySelector('#items li.cell .live-output'))`)
	a.crash()
	a.start()
	tb.until("the restart note and the finished answer", `document.querySelector('#items li.user.restart') !== null &&
		[...document.querySelectorAll('#items li.message')].some(m => m.textContent.includes('finished after restart')) &&
		document.querySelector('#session').dataset.running === 'false'`)
	sameItems(t, tb, a, id)
	if n := eval[int](tb, `document.querySelectorAll('#items li.user.restart').length`); n != 1 {
		t.Errorf("%d restart notes shown, want 1", n)
	}

	// A hidden tab closes its stream, and opens it where it was when
	// shown again. (A headless browser's tabs never hide: the page is told
	// so as a browser tells it.)
	const setHidden = `((hidden) => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden}); document.dispatchEvent(new Event('visibilitychange')); return true; })`
	eval[bool](tb, setHidden+"(true)")
	tb.until("the stream closed", `document.querySelector('#session').dataset.stream === 'hidden'`)
	// Sent while the page holds no stream: it learns of it only when it
	// opens the stream again, after the last item it showed.
	a.api("POST", "/sessions/"+id+"/events", `{"content": "while hidden"}`, nil)
	eval[bool](tb, setHidden+"(false)")
	tb.until("what came while hidden", `document.querySelector('#session').dataset.stream === 'open' &&
		[...document.querySelectorAll('#items li.user')].some(u => u.textContent.includes('while hidden')) &&
		document.querySelectorAll('#items li.turn').length === 2`)
	sameItems(t, tb, a, id)
}

func TestBrowserKeepsOtherPagesOut(t *testing.T) {
	tb := newTab(t)
	a := startAlbedo(t, script(nil))
	tb.login(a)
	sessions := func() int {
		var list []any
		a.api("GET", "/sessions", "", &list)
		return len(list)
	}
	before := sessions()

	// A page of another site on the same machine (another port of
	// 127.0.0.1: the same site to the browser, which sends the cookie)
	// writes with the cookie: refused, by fetch and by form.
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>attacker</title><p>hello</p>`)
	}))
	defer attacker.Close()
	other := openTab(t, false)
	other.do("the other page", chromedp.Navigate(attacker.URL))
	body, _ := json.Marshal(map[string]string{"workspace": a.workspace})
	status := eval[int](other, fmt.Sprintf(`fetch(%q, {method: 'POST', credentials: 'include', body: %q}).then(r => r.status, () => -1)`, a.base()+"/sessions", body))
	if status != -1 {
		t.Errorf("a cross-origin fetch was answered %d; the browser should not let the page read it", status)
	}
	eval[int](other, fmt.Sprintf(`fetch(%q, {method: 'POST', mode: 'no-cors', credentials: 'include', headers: {'Content-Type': 'text/plain'}, body: %q}).then(() => 0, () => 0)`, a.base()+"/sessions", body))
	ctx, cancel := context.WithTimeout(other.ctx, waitLimit)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const f = document.createElement('form'); f.method = 'POST'; f.action = %q; f.enctype = 'text/plain';
		const i = document.createElement('input'); i.name = '{"workspace": "%s", "x": "'; i.value = '"}'; f.append(i);
		document.body.append(f); f.submit(); })()`, a.base()+"/sessions", a.workspace)))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusForbidden {
		t.Errorf("a form posted from another page was answered %d, want 403", resp.Status)
	}
	if after := sessions(); after != before {
		t.Errorf("pages of another origin made %d sessions", after-before)
	}

	// A name rebound to 127.0.0.1 gets a refusal, not the page.
	ctx, cancel = context.WithTimeout(other.ctx, waitLimit)
	defer cancel()
	resp, err = chromedp.RunResponse(ctx, chromedp.Navigate(strings.Replace(a.base(), "127.0.0.1", "attacker.example", 1)+"/web/"))
	if err != nil {
		t.Fatal(err)
	}
	if text := eval[string](other, "document.body.innerText"); resp.Status != http.StatusForbidden || !strings.Contains(text, "refused") {
		t.Errorf("a rebound name got %d %q", resp.Status, text)
	}
}

func TestBrowserTriagesVents(t *testing.T) {
	tb := newTab(t)
	a := startAlbedo(t, script(nil))
	id := a.newSession()
	tb.login(a)
	tb.openSession(a, id)
	tb.send("file a vent")
	tb.until("the turn's end", `document.querySelector('#items li.turn[data-status=finished]') !== null`)

	tb.do("the vents", chromedp.Navigate(a.base()+"/web/#/vents"))
	tb.until("the vent filed", `[...document.querySelectorAll('#vents li.vent')].some(v => v.textContent.includes('slow tests'))`)
	tb.do("reply", chromedp.SendKeys(chromedp.CSS("#vents li.vent .reply-text"), "use a faster disk"), chromedp.Click(chromedp.CSS("#vents li.vent .reply-send")))
	tb.until("the reply sent", `document.querySelector('#vents li.vent .vent-note.ok') !== null`)

	// The reply reaches the session on its next turn.
	tb.openSession(a, id)
	tb.send("thanks")
	tb.until("the reply in the session", `[...document.querySelectorAll('#items li.user[data-source=paperclips]')].some(u => u.textContent.includes('use a faster disk'))`)

	// A reply to a vent changed elsewhere shows the conflict.
	tb.do("the vents again", chromedp.Navigate(a.base()+"/web/#/vents?status=all"))
	tb.until("the vent", `document.querySelector('#vents li.vent .reply-text') !== null`)
	ventID := eval[string](tb, `document.querySelector('#vents li.vent').dataset.id`)
	rev := eval[string](tb, `document.querySelector('#vents li.vent').dataset.revision`)
	if _, err := a.request("PATCH", "/extensions/paperclips/items/"+ventID, `{"status": "resolved"}`, map[string]string{"If-Match": `"` + rev + `"`}); err != nil {
		t.Fatal(err)
	}
	tb.do("a stale reply", chromedp.SendKeys(chromedp.CSS("#vents li.vent .reply-text"), "too late"), chromedp.Click(chromedp.CSS("#vents li.vent .reply-send")))
	tb.until("the conflict", `(n => n !== null && n.textContent.includes('changed elsewhere'))(document.querySelector('#vents li.vent .vent-note.conflict'))`)
	if st := eval[string](tb, `document.querySelector('#vents li.vent').dataset.status`); st != "resolved" {
		t.Errorf("after the conflict the vent shows status %q, want it reloaded as resolved", st)
	}
}
