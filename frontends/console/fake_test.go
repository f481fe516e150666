package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/home"
	"github.com/gdamore/tcell/v2"
)

// fakeDaemon is an httptest server that plays the daemon for one or more
// sessions: it keeps their events, streams them, and records requests.
type fakeDaemon struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	// events are each session's durable events so far.
	events map[string][]wire.Event
	// subs are the open streams of each session.
	subs map[string][]chan wire.Event
	// requests are "METHOD path body" lines, in order.
	requests []string
	running  bool
	vents    []wire.Vent
	// onSend answers a message; it may publish events.
	onSend func(f *fakeDaemon, id, text string) (queued bool)
	// dials counts clients handed out.
	dials int
	// hidden are the sessions deleted: left out of listings; archived are
	// the sessions archived: listed with archived=all.
	hidden   map[string]bool
	archived map[string]bool
	// usage sums each session's requests, as the status events published
	// report them; contexts is each session's context measure, as the
	// latest status event gave it. Tests may set both.
	usage    map[string]wire.UsageTotals
	contexts map[string]wire.Context
	// nodes names the daemon running each session's turn, as a daemon
	// sharing its store with others says; a session with one is listed
	// running.
	nodes map[string]string
	// glances are each session's glances besides its model's.
	glances map[string][]map[string]any
	// createErr, when set, is the error body that refuses a new session.
	createErr map[string]any
}

func newFakeDaemon(t *testing.T) *fakeDaemon {
	f := &fakeDaemon{t: t, events: map[string][]wire.Event{}, subs: map[string][]chan wire.Event{}, hidden: map[string]bool{}, archived: map[string]bool{},
		usage: map[string]wire.UsageTotals{}, contexts: map[string]wire.Context{}, nodes: map[string]string{}, glances: map[string][]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sessions", f.sessions)
	mux.HandleFunc("POST /sessions", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.createErr != nil {
			w.WriteHeader(http.StatusConflict)
			writeJSON(w, f.createErr)
			return
		}
		writeJSON(w, wire.Session{ID: "s3", Workspace: "/w", Provider: "fixture", Model: "fixture-model"})
	})
	mux.HandleFunc("GET /sessions/{id}", f.session)
	mux.HandleFunc("PATCH /sessions/{id}", f.rename)
	mux.HandleFunc("DELETE /sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hidden[r.PathValue("id")] = true
		f.mu.Unlock()
		writeJSON(w, map[string]any{"deleted": r.PathValue("id")})
	})
	mux.HandleFunc("GET /sessions/{id}/stream", f.stream)
	mux.HandleFunc("GET /sessions/{id}/context", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		writeJSON(w, f.contexts[r.PathValue("id")])
	})
	mux.HandleFunc("GET /sessions/{id}/status", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		writeJSON(w, map[string]any{"running": f.running})
	})
	mux.HandleFunc("POST /sessions/{id}/events", f.send)
	mux.HandleFunc("POST /sessions/{id}/interrupt", func(w http.ResponseWriter, r *http.Request) {
		f.publish(r.PathValue("id"), wire.Event{Type: "turn", Seq: f.nextSeq(r.PathValue("id")), Status: "interrupted"}, statusEvent(false))
		writeJSON(w, map[string]any{"running": false})
	})
	mux.HandleFunc("DELETE /sessions/{id}/queue/{queue}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"deleted": r.PathValue("queue")})
	})
	mux.HandleFunc("POST /sessions/{id}/queue/send", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"running": true})
	})
	mux.HandleFunc("POST /sessions/{id}/commands", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Name string
			Args struct{ Skill string }
		}
		json.NewDecoder(r.Body).Decode(&body)
		if body.Name == "/skill" && body.Args.Skill != "deploy" {
			w.WriteHeader(http.StatusNotFound)
			writeJSON(w, map[string]any{"error": "no skill is named " + body.Args.Skill + ": the skills offered are deploy", "code": "not_found"})
			return
		}
		if body.Name == "/skill" {
			writeJSON(w, map[string]any{"result": map[string]any{"skill": "deploy", "source": ".agents/skills/deploy/SKILL.md", "queued": true}})
			return
		}
		if body.Name == "/compact" {
			writeJSON(w, map[string]any{"result": map[string]any{"started": false, "reason": "nothing to compact: only the newest message and its answer are left"}})
			return
		}
		writeJSON(w, map[string]any{"result": map[string]any{"provider": "other", "model": "big", "protocol": "responses"}})
	})
	mux.HandleFunc("POST /sessions/{id}/fork", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.events["forked"] = append([]wire.Event(nil), f.events[r.PathValue("id")][:1]...)
		f.mu.Unlock()
		writeJSON(w, map[string]any{"id": "forked", "workspace": "/w"})
	})
	mux.HandleFunc("GET /extensions/paperclips/items", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		var items []map[string]any
		for i := len(f.vents) - 1; i >= 0; i-- {
			items = append(items, map[string]any{"value": f.vents[i]})
		}
		writeJSON(w, map[string]any{"items": items})
	})
	mux.HandleFunc("GET /extensions/paperclips/items/{vent}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"1"`)
		writeJSON(w, map[string]any{"value": wire.Vent{ID: r.PathValue("vent")}})
	})
	mux.HandleFunc("PATCH /extensions/paperclips/items/{vent}", f.patchVent)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests = append(f.requests, strings.TrimSpace(r.Method+" "+r.URL.RequestURI()+" "+string(body)))
		f.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.close)
	return f
}

// close ends every stream and the server.
func (f *fakeDaemon) close() {
	f.dropStreams()
	f.srv.Close()
}

// dropStreams ends the open streams, as a daemon that shuts down does.
func (f *fakeDaemon) dropStreams() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, subs := range f.subs {
		for _, ch := range subs {
			close(ch)
		}
		delete(f.subs, id)
	}
}

// dial returns a client of the fake.
func (f *fakeDaemon) dial(ctx context.Context) (*client.Client, error) {
	f.mu.Lock()
	f.dials++
	f.mu.Unlock()
	_, port, _ := net.SplitHostPort(f.srv.Listener.Addr().String())
	n, _ := strconv.Atoi(port)
	return client.New(home.Connection{Port: n, Token: "t"}), nil
}

// seen reports whether a request line containing want arrived.
func (f *fakeDaemon) seen(want string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.requests {
		if strings.Contains(r, want) {
			return true
		}
	}
	return false
}

func (f *fakeDaemon) nextSeq(id string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for _, ev := range f.events[id] {
		n = max(n, ev.Seq)
	}
	return n + 1
}

// publish records durable events and sends every event to the streams.
func (f *fakeDaemon) publish(id string, events ...wire.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ev := range events {
		if ev.Seq != 0 {
			f.events[id] = append(f.events[id], ev)
		}
		if ev.Type == "status" && ev.Running != nil {
			f.running = *ev.Running
		}
		if u := ev.Usage; ev.Type == "status" && u != nil {
			total := f.usage[id]
			total.InputTokens += wire.Tokens(u.InputTokens)
			total.OutputTokens += wire.Tokens(u.OutputTokens)
			total.Requests++
			f.usage[id] = total
		}
		if ev.Type == "status" && ev.Used != nil {
			f.contexts[id] = wire.Context{Used: ev.Used, Window: ev.Window, Percent: ev.Percent}
		}
		for _, ch := range f.subs[id] {
			ch <- ev
		}
	}
}

func statusEvent(running bool) wire.Event { return wire.Event{Type: "status", Running: &running} }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (f *fakeDaemon) sessions(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := []wire.Session{}
	for _, s := range []wire.Session{
		{ID: "s1", Workspace: "/w", Title: "older", Provider: "fixture", Model: "m", UpdatedAt: 1},
		{ID: "s2", Workspace: "/w2", Title: "newer", Provider: "fixture", Model: "m", UpdatedAt: 2},
	} {
		s.Archived = f.archived[s.ID]
		if s.Node = f.nodes[s.ID]; s.Node != "" {
			s.Stage = "running"
		}
		if f.hidden[s.ID] || s.Archived && r.URL.Query().Get("archived") != "all" {
			continue
		}
		if strings.Contains(s.Title, r.URL.Query().Get("q")) {
			list = append(list, s)
		}
	}
	writeJSON(w, list)
}

func (f *fakeDaemon) session(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := r.PathValue("id")
	if id == "gone" {
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]any{"error": "no session gone", "code": "not_found"})
		return
	}
	if r.URL.Query().Get("view") == "configuration" {
		w.Header().Set("ETag", `"4"`)
		writeJSON(w, map[string]any{"id": id})
		return
	}
	writeJSON(w, map[string]any{
		"session": wire.Session{ID: id, Workspace: "/w", Provider: "fixture", Model: "fixture-model", Title: "a title", Usage: f.usage[id], Node: f.nodes[id]},
		"running": f.running, "events": []wire.Event{},
		"glances": append([]map[string]any{{"extension": "model"}}, f.glances[id]...),
	})
}

func (f *fakeDaemon) rename(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name     string
		Archived *bool
	}
	json.NewDecoder(r.Body).Decode(&body)
	if body.Archived != nil {
		f.mu.Lock()
		f.archived[r.PathValue("id")] = *body.Archived
		f.mu.Unlock()
	}
	writeJSON(w, map[string]any{"id": r.PathValue("id"), "name": body.Name})
}

func (f *fakeDaemon) stream(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ch := make(chan wire.Event, 256)
	f.mu.Lock()
	snapshot := append([]wire.Event{}, f.events[id]...)
	f.subs[id] = append(f.subs[id], ch)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	write := func(events []wire.Event) {
		data, _ := json.Marshal(map[string]any{"events": events})
		fmt.Fprintf(w, "data: %s\n\n", data)
		w.(http.Flusher).Flush()
	}
	write(snapshot)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return
			}
			write([]wire.Event{ev})
		case <-r.Context().Done():
			f.mu.Lock()
			for i, c := range f.subs[id] {
				if c == ch {
					f.subs[id] = append(f.subs[id][:i], f.subs[id][i+1:]...)
					break
				}
			}
			f.mu.Unlock()
			return
		}
	}
}

func (f *fakeDaemon) send(w http.ResponseWriter, r *http.Request) {
	var body struct{ Content string }
	json.NewDecoder(r.Body).Decode(&body)
	queued := false
	if f.onSend != nil {
		queued = f.onSend(f, r.PathValue("id"), body.Content)
	}
	w.WriteHeader(http.StatusAccepted)
	writeJSON(w, map[string]any{"queued": queued})
}

func (f *fakeDaemon) patchVent(w http.ResponseWriter, r *http.Request) {
	var body struct{ Reply, Status string }
	json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.vents {
		if f.vents[i].ID == r.PathValue("vent") {
			if body.Reply != "" {
				f.vents[i].Reply, f.vents[i].Status = body.Reply, "acknowledged"
			}
			if body.Status != "" {
				f.vents[i].Status = body.Status
			}
			writeJSON(w, map[string]any{"notification": map[string]any{"state": "queued"}, "resource": map[string]any{"value": f.vents[i]}})
			return
		}
	}
	w.WriteHeader(http.StatusNotFound)
	writeJSON(w, map[string]any{"error": "no vent", "code": "not_found"})
}

// screen is a simulation screen that keeps the text of each frame shown,
// for tests to read from their own goroutine.
type screen struct {
	tcell.SimulationScreen
	w, h int
	mu   sync.Mutex
	rows []string
}

func newScreen(w, h int) *screen {
	return &screen{SimulationScreen: tcell.NewSimulationScreen("UTF-8"), w: w, h: h}
}

// Init sets the screen up at its size.
func (s *screen) Init() error {
	if err := s.SimulationScreen.Init(); err != nil {
		return err
	}
	s.SetSize(s.w, s.h)
	return nil
}

// Show shows the frame and keeps its text.
func (s *screen) Show() {
	s.SimulationScreen.Show()
	rows := screenText(s.SimulationScreen)
	s.mu.Lock()
	s.rows = rows
	s.mu.Unlock()
}

// text returns the last frame's text.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.rows, "\n")
}

// waitFor polls the frames until one shows every needle.
func (s *screen) waitFor(t *testing.T, needles ...string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		text := s.text()
		ok := true
		for _, n := range needles {
			ok = ok && strings.Contains(text, n)
		}
		if ok {
			return text
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q; it shows:\n%s", needles, text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// typeText injects text as key presses.
func (s *screen) typeText(text string) {
	for _, r := range text {
		s.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
}

// waitUntil polls cond until it holds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
