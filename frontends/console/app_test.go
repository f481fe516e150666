package console

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gdamore/tcell/v2"
)

// startConsole runs a console on a 100×30 simulation screen and returns
// the screen and a function that waits for Run to return.
func startConsole(t *testing.T, f *fakeDaemon, opts Options) (*screen, func() Result) {
	t.Helper()
	s := newScreen(100, 30)
	opts.Dial, opts.Screen = f.dial, s
	ctx, cancel := context.WithCancel(context.Background())
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Run(ctx, opts)
		done <- outcome{res, err}
	}()
	var waited *outcome
	wait := func() Result {
		if waited == nil {
			o := <-done
			waited = &o
		}
		if waited.err != nil {
			t.Errorf("Run: %v", waited.err)
		}
		return waited.res
	}
	t.Cleanup(func() {
		cancel()
		wait()
	})
	return s, wait
}

// answer makes the fake daemon answer every message with a streamed reply
// and a cell.
func answer(f *fakeDaemon, id, text string) bool {
	seq := f.nextSeq(id)
	f.publish(id,
		statusEvent(true),
		wire.Event{Type: "user", Seq: seq, Text: text},
		wire.Event{Type: "delta", Kind: "text", Text: "Hel"},
		wire.Event{Type: "delta", Kind: "text", Text: "lo "},
	)
	f.publish(id,
		wire.Event{Type: "message", Seq: seq + 1, Text: "Hello there"},
		wire.Event{Type: "tool_call", Seq: seq + 2, CallID: "c1", Name: "python", Code: "print('from the cell')"},
		wire.Event{Type: "tool", Seq: seq + 3, CallID: "c1", Name: "python", Code: "print('from the cell')", Status: "ok",
			Result: `{"status":"ok","output":"from the cell\n"}`, Trace: &wire.Trace{Changes: []wire.Change{{Path: "/w/out.txt", Kind: "created"}}}},
		wire.Event{Type: "status", Usage: &wire.Usage{InputTokens: new(int64(1200)), OutputTokens: new(int64(30))}, Used: new(int64(1234)), Window: new(int64(2000)), Percent: new(61.7)},
		wire.Event{Type: "turn", Seq: seq + 4, Status: "finished"},
		statusEvent(false),
	)
	return false
}

func TestConsoleSendsAndShowsTheTurn(t *testing.T) {
	f := newFakeDaemon(t)
	f.events["s1"] = []wire.Event{{Type: "user", Seq: 1, Text: "earlier question"}, {Type: "message", Seq: 2, Text: "earlier answer"}}
	f.onSend = answer
	s, wait := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "earlier question", "earlier answer", "fixture · fixture-model", "idle")
	s.typeText("hi there")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	screen := s.waitFor(t, "❯ hi there", "Hello there", "from the cell", "+out.txt", "ctx 62% · 1k/2k · 1.2k in · 30 out", "○ idle")
	if strings.Contains(screen, "Hel\n") {
		t.Errorf("the streamed text was not completed in place:\n%s", screen)
	}
	if !f.seen(`POST /sessions/s1/events {"content":"hi there"}`) {
		t.Errorf("no message sent; requests: %q", f.requests)
	}
	s.typeText("an unsent draft")
	s.InjectKey(tcell.KeyCtrlD, 0, tcell.ModCtrl)
	s.waitFor(t, "an unsent draft", "clear the message first")
	s.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)
	s.InjectKey(tcell.KeyCtrlD, 0, tcell.ModCtrl)
	if res := wait(); res.Session != "s1" {
		t.Errorf("detached from %q, want s1", res.Session)
	}
}

func TestConsoleNewlinesHistoryAndQueue(t *testing.T) {
	f := newFakeDaemon(t)
	f.onSend = func(f *fakeDaemon, id, text string) bool {
		f.publish(id, wire.Event{Type: "queued", Text: text})
		return true
	}
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "Message albedo")
	s.typeText("line one")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModAlt) // a newline, not a send
	s.typeText("line two")
	s.InjectKey(tcell.KeyCtrlJ, 0, tcell.ModCtrl)
	s.typeText("three")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "⧗ line one", "1 message waiting")
	if !f.seen(`{"content":"line one\nline two\nthree"}`) {
		t.Errorf("the multi-line message was not sent whole; requests: %q", f.requests)
	}
	// Up recalls the message sent.
	s.InjectKey(tcell.KeyUp, 0, tcell.ModNone)
	s.waitFor(t, "❯ line one\n  line two")
}

func TestConsoleInterrupts(t *testing.T) {
	f := newFakeDaemon(t)
	f.onSend = func(f *fakeDaemon, id, text string) bool {
		f.publish(id, statusEvent(true), wire.Event{Type: "user", Seq: 1, Text: text},
			wire.Event{Type: "tool_call", Seq: 2, CallID: "c", Name: "python", Code: "sleep()"})
		return false
	}
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "Message albedo")
	s.typeText("go")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "running…", "⠋ running 0s")
	s.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
	s.waitFor(t, "turn interrupted", "○ idle")
	if !f.seen("POST /sessions/s1/interrupt") {
		t.Error("no interrupt sent")
	}
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestConsoleShowsTheRunningTurnAndCellMove(t *testing.T) {
	clock := &fakeClock{now: time.UnixMilli(1_000_000)}
	tick := make(chan time.Time)
	f := newFakeDaemon(t)
	f.onSend = func(f *fakeDaemon, id, text string) bool {
		f.publish(id, statusEvent(true), wire.Event{Type: "user", Seq: 1, Text: text, Timestamp: 1_000_000})
		return false
	}
	s, _ := startConsole(t, f, Options{Session: "s1", Clock: clock.Now, Tick: tick})
	s.waitFor(t, "Message albedo", "○ idle")
	s.typeText("go")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "⠋ running 0s")
	steps := []struct {
		advance time.Duration
		want    string
	}{
		{300 * time.Millisecond, "⠸ running 0s"},
		{1900 * time.Millisecond, "⠹ running 2s"},
		{63 * time.Second, "⠹ running 1m05s"},
	}
	for _, step := range steps {
		clock.advance(step.advance)
		tick <- clock.Now()
		s.waitFor(t, step.want)
	}
	// A cell called at 1,060 s has run for 5 s at 1,065.2 s.
	f.publish("s1", wire.Event{Type: "tool_call", Seq: 2, CallID: "c", Name: "python", Code: "work()", Timestamp: 1_060_000})
	s.waitFor(t, "running 1m05s · cell 5s")
	f.publish("s1", wire.Event{Type: "tool", Seq: 3, CallID: "c", Name: "python", Status: "ok", Result: `{"status":"ok","output":""}`})
	screen := s.waitFor(t, "· ok")
	if strings.Contains(screen, "· cell") {
		t.Errorf("a finished cell still counts:\n%s", screen)
	}
	f.publish("s1", wire.Event{Type: "turn", Seq: 4, Status: "finished"}, statusEvent(false))
	screen = s.waitFor(t, "○ idle")
	if strings.Contains(screen, "running 1m") {
		t.Errorf("the indicator stayed after the turn:\n%s", screen)
	}
}

func TestConsoleReconnects(t *testing.T) {
	f := newFakeDaemon(t)
	f.events["s1"] = []wire.Event{{Type: "user", Seq: 1, Text: "before the restart"}}
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "before the restart")
	f.mu.Lock()
	f.events["s1"] = append(f.events["s1"], wire.Event{Type: "message", Seq: 2, Text: "written while away"})
	f.mu.Unlock()
	f.dropStreams()
	s.waitFor(t, "reconnected to the daemon", "before the restart", "written while away")
	f.mu.Lock()
	dials := f.dials
	f.mu.Unlock()
	if dials < 2 {
		t.Errorf("dialled %d times, want a new dial after the drop", dials)
	}
}

func TestConsoleCommands(t *testing.T) {
	f := newFakeDaemon(t)
	f.events["s1"] = []wire.Event{{Type: "user", Seq: 1, Text: "root"}, {Type: "message", Seq: 2, Text: "reply"}}
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "reply")
	for _, tt := range []struct {
		line    string
		request string
		screen  string
	}{
		{"/model other big", `POST /sessions/s1/commands {"name":"/model","args":{"model":"big","provider":"other"}}`, "now on other · big (responses); new sessions use it too"},
		{"/name my work", `PATCH /sessions/s1?view=configuration {"name":"my work"}`, "named my work"},
		{"/workspace /elsewhere", `POST /sessions/s1/workspace {"workspace":"/elsewhere"}`, ""},
		{"/bogus", `POST /sessions/s1/commands {"name":"/skill","args":{"skill":"bogus","text":""}}`, "the skills offered are deploy"},
		{"/deploy to staging", `POST /sessions/s1/commands {"name":"/skill","args":{"skill":"deploy","text":"to staging"}}`, queuedNote},
		{"/help", "", "/rewind ID"},
		{"/fork 1", `POST /sessions/s1/fork {"checkpoint":1}`, "forked from session s1 at #1"},
	} {
		s.typeText(tt.line)
		s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
		if tt.request != "" {
			waitUntil(t, tt.request, func() bool { return f.seen(tt.request) })
		}
		if tt.screen != "" {
			s.waitFor(t, tt.screen)
		}
	}
	screen := s.waitFor(t, "forked")
	if strings.Contains(screen, "reply") {
		t.Errorf("the fork shows the source session's later events:\n%s", screen)
	}
}

func TestConsoleSaysWhatToDoWhenTheContextIsFull(t *testing.T) {
	f := newFakeDaemon(t)
	f.events["s1"] = []wire.Event{{Type: "user", Seq: 1, Text: "root"}, {Type: "message", Seq: 2, Text: "reply"},
		{Type: "error", Seq: 3, Text: "ask fixture (m): the next request (about 2100 tokens) does not fit the model's context window of 2000 tokens, " +
			"and there is nothing left to compact: the newest message and its answer alone fill it"}}
	f.contexts["s1"] = wire.Context{Used: tokenCount(1950), Window: tokenCount(2000), Percent: percent(97.5)}
	f.usage["s1"] = wire.UsageTotals{Requests: 1}
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "nothing left to compact", "the context is full: /fork N goes on from an earlier checkpoint #N")
	s.typeText("/compact")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	screen := s.waitFor(t, "not compacted: nothing to compact")
	if n := strings.Count(screen, "/new starts a fresh session"); n != 2 {
		t.Errorf("the hint shows %d times, want under the error and under /compact's answer:\n%s", n, screen)
	}
	// /new opens a fresh session in the same folder.
	s.typeText("/new")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitUntil(t, "the new session", func() bool { return f.seen(`POST /sessions {"workspace":"/w"}`) })
	s.waitFor(t, "a new session in /w; session s1 goes on in the daemon", "s3")
}

func TestConsolePickerAndVents(t *testing.T) {
	f := newFakeDaemon(t)
	f.vents = []wire.Vent{
		{ID: "1", Title: "old complaint", Topic: "bug", Status: "open", Message: "the old message"},
		{ID: "2", Title: "new complaint", Topic: "harness", Status: "open", Message: "it is slow", Suggestion: "cache it", SessionID: ptr("s2"), SessionTitle: "what s2 was about", Workspace: "/w2"},
	}
	f.events["s2"] = []wire.Event{{Type: "user", Seq: 1, Text: "in s2"}}
	s, wait := startConsole(t, f, Options{Workspace: "/w"})
	// The picker lists the most recent session first.
	screen := s.waitFor(t, "newer", "older", "2 sessions")
	if strings.Index(screen, "newer") > strings.Index(screen, "older") {
		t.Errorf("sessions out of order:\n%s", screen)
	}
	s.typeText("v")
	s.waitFor(t, "#2", "new complaint", "it is slow", "cache it", "“what s2 was about” (s2, now “newer”)", "/w2")
	if !f.seen("GET /sessions?archived=all") {
		t.Errorf("the vents screen did not list archived sessions, which are not gone; requests: %q", f.requests)
	}
	s.typeText("r")
	s.waitFor(t, "reply to #2:")
	s.typeText("on it")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "replied to #2", "acknowledged")
	if !f.seen(`PATCH /extensions/paperclips/items/2 {"reply":"on it"}`) {
		t.Errorf("no reply sent; requests: %q", f.requests)
	}
	s.InjectKey(tcell.KeyDown, 0, tcell.ModNone)
	s.waitFor(t, "the old message")
	s.typeText("d")
	waitUntil(t, "the dismissal", func() bool { return f.seen(`PATCH /extensions/paperclips/items/1 {"status":"dismissed"}`) })
	s.waitFor(t, "dismissed #1")
	s.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
	s.waitFor(t, "newer", "older")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "in s2")
	s.typeText("/quit")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	if res := wait(); res.Session != "s2" {
		t.Errorf("left from %q, want s2", res.Session)
	}
}

func TestRunRefusesAnUnknownSession(t *testing.T) {
	f := newFakeDaemon(t)
	_, err := Run(context.Background(), Options{Dial: f.dial, Session: "gone", Screen: newScreen(80, 24)})
	if wire.ErrorCode(err) != "not_found" {
		t.Errorf("err = %v, want not_found before the screen is taken", err)
	}
}

func ptr(s string) *string { return &s }

func TestConsoleKeepsAReplyThatFailed(t *testing.T) {
	f := newFakeDaemon(t)
	f.vents = []wire.Vent{{ID: "1", Title: "a complaint", Topic: "bug", Status: "open"}}
	s, _ := startConsole(t, f, Options{Workspace: "/w"})
	s.waitFor(t, "2 sessions")
	s.typeText("v")
	s.waitFor(t, "#1", "a complaint")
	f.mu.Lock()
	f.vents = nil // deleted elsewhere: the reply fails
	f.mu.Unlock()
	s.typeText("r")
	s.waitFor(t, "reply to #1:")
	s.typeText("a careful reply")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "no vent")
	s.typeText("r")
	s.waitFor(t, "reply to #1: a careful reply")
}

func TestPickerSearchFiltersAsItIsTyped(t *testing.T) {
	f := newFakeDaemon(t)
	s, wait := startConsole(t, f, Options{Workspace: "/w"})
	s.waitFor(t, "newer", "older", "2 sessions")
	// Each key filters at once: no Enter is needed.
	s.typeText("/old")
	screen := s.waitFor(t, "older", "1 session matching old")
	if strings.Contains(screen, "newer") {
		t.Errorf("the filter let a session through:\n%s", screen)
	}
	// Esc in the field clears the filter.
	s.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
	s.waitFor(t, "newer", "older", "2 sessions")
	// Enter keeps it; Esc then clears it, and only a second Esc quits.
	s.typeText("/new")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "1 session matching new (Esc clears the search)")
	s.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
	s.waitFor(t, "newer", "older", "2 sessions")
	s.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
	if res := wait(); res.Session != "" {
		t.Errorf("left from %q, want no session", res.Session)
	}
}

func TestPickerSaysWhyItOpened(t *testing.T) {
	f := newFakeDaemon(t)
	s, _ := startConsole(t, f, Options{Workspace: "/w", PickerNote: "no session was started here"})
	s.waitFor(t, "newer", "older", "no session was started here")
	s.typeText("r")
	s.waitFor(t, "2 sessions")
	if strings.Contains(s.text(), "no session was started here") {
		t.Errorf("the note shows again after a reload:\n%s", s.text())
	}
}

func TestPickerDeletesAfterAsking(t *testing.T) {
	f := newFakeDaemon(t)
	s, _ := startConsole(t, f, Options{Workspace: "/w"})
	s.waitFor(t, "newer", "older", "2 sessions")
	// d asks first; any key but y keeps the session.
	s.typeText("d")
	s.waitFor(t, "delete newer and its whole transcript?")
	s.typeText("x")
	s.waitFor(t, "kept newer")
	s.typeText("d")
	s.waitFor(t, "delete newer")
	s.typeText("y")
	waitUntil(t, "the deletion", func() bool { return f.seen("DELETE /sessions/s2") })
	s.waitFor(t, "1 session")
}

func TestPickerArchivesAfterAskingAndUndoes(t *testing.T) {
	f := newFakeDaemon(t)
	s, _ := startConsole(t, f, Options{Workspace: "/w"})
	s.waitFor(t, "newer", "older", "2 sessions")
	// a asks first; any key but y keeps the session.
	s.typeText("a")
	s.waitFor(t, "archive newer?")
	s.typeText("n")
	s.waitFor(t, "kept newer")
	if f.seen(`{"archived":true}`) {
		t.Fatal("archived without a y")
	}
	s.typeText("ay")
	waitUntil(t, "the archiving", func() bool { return f.seen(`PATCH /sessions/s2?view=configuration {"archived":true}`) })
	s.waitFor(t, "archived newer: u brings it back")
	// u brings it back.
	s.typeText("u")
	waitUntil(t, "the undo", func() bool { return f.seen(`PATCH /sessions/s2?view=configuration {"archived":false}`) })
	s.waitFor(t, "brought back newer", "newer", "older")
	// A shows archived sessions, marked; a on one brings it back.
	s.typeText("ay")
	s.waitFor(t, "archived newer")
	s.typeText("A")
	waitUntil(t, "the listing with archived sessions", func() bool { return f.seen("GET /sessions?archived=all") })
	s.waitFor(t, "archived ones included", "newer")
	s.typeText("a")
	s.waitFor(t, "brought back newer")
	s.typeText("A")
	s.waitFor(t, "2 sessions")
}

func TestConsoleLoginSavesAProvider(t *testing.T) {
	f := newFakeDaemon(t)
	saved := make(chan Login, 1)
	opts := Options{Session: "s1",
		SaveProvider: func(ctx context.Context, p Login) error { saved <- p; return nil },
		Providers: func(ctx context.Context) ([]Provider, error) {
			return []Provider{{Name: "fixture", BaseURL: "http://127.0.0.1:9/v1", Protocol: "chat_completions", Model: "fixture-model", Active: true}}, nil
		},
	}
	s, _ := startConsole(t, f, opts)
	s.waitFor(t, "Message albedo", "fixture · fixture-model")
	s.typeText("/login")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	// The form offers the session's provider as configured.
	s.waitFor(t, "add a model provider", "fixture", "http://127.0.0.1:9/v1", "chat_completions", "fixture-model")
	for range 3 { // to the model
		s.InjectKey(tcell.KeyTab, 0, tcell.ModNone)
	}
	s.InjectKey(tcell.KeyCtrlU, 0, tcell.ModCtrl)
	s.typeText("bigger-model")
	s.InjectKey(tcell.KeyTab, 0, tcell.ModNone)
	s.typeText("sk-secret")
	screen := s.waitFor(t, "•••••••••")
	if strings.Contains(screen, "sk-secret") {
		t.Errorf("the key is shown:\n%s", screen)
	}
	s.InjectKey(tcell.KeyTab, 0, tcell.ModNone)
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone) // Save
	p := <-saved
	if want := (Login{Name: "fixture", BaseURL: "http://127.0.0.1:9/v1", Protocol: "chat_completions", Model: "bigger-model", APIKey: "sk-secret"}); p != want {
		t.Errorf("saved %+v, want %+v", p, want)
	}
	s.waitFor(t, "saved provider fixture", "new sessions use it", "Message albedo")
}

func TestConsoleLoginOpensAgainWithAnEmptyKey(t *testing.T) {
	f := newFakeDaemon(t)
	saved := make(chan Login, 1)
	opts := Options{Session: "s1",
		SaveProvider: func(ctx context.Context, p Login) error { saved <- p; return nil },
		Providers: func(ctx context.Context) ([]Provider, error) {
			return []Provider{{Name: "fixture", BaseURL: "http://127.0.0.1:9/v1", Protocol: "chat_completions", Model: "fixture-model", Active: true}}, nil
		},
	}
	s, _ := startConsole(t, f, opts)
	s.waitFor(t, "Message albedo", "fixture · fixture-model")
	toKey := func() {
		s.typeText("/login")
		s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
		s.waitFor(t, "add a model provider", "http://127.0.0.1:9/v1")
		for range 4 {
			s.InjectKey(tcell.KeyTab, 0, tcell.ModNone)
		}
	}
	save := func() Login {
		s.InjectKey(tcell.KeyTab, 0, tcell.ModNone)
		s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
		p := <-saved
		s.waitFor(t, "saved provider fixture", "Message albedo")
		return p
	}
	toKey()
	s.typeText("sk-ABCDEFGHIJ")
	s.waitFor(t, strings.Repeat("•", 13))
	if p := save(); p.APIKey != "sk-ABCDEFGHIJ" {
		t.Fatalf("first save stored key %q", p.APIKey)
	}
	// Opened again, the key field is empty: saving keeps the saved key.
	toKey()
	if screen := s.waitFor(t, "add a model provider"); strings.Contains(screen, "•") {
		t.Errorf("the key field is not empty:\n%s", screen)
	}
	if p := save(); p.APIKey != "" {
		t.Errorf("second save stored key %q, want none (keep the saved one)", p.APIKey)
	}
}

func TestConsoleModelPicksAConfiguredProvider(t *testing.T) {
	f := newFakeDaemon(t)
	opts := Options{Session: "s1", Providers: func(ctx context.Context) ([]Provider, error) {
		return []Provider{
			{Name: "fixture", BaseURL: "http://127.0.0.1:9/v1", Protocol: "chat_completions", Model: "fixture-model", Active: true},
			{Name: "other", BaseURL: "http://127.0.0.1:8/v1", Protocol: "responses", Model: "big"},
		}, nil
	}}
	s, _ := startConsole(t, f, opts)
	s.waitFor(t, "Message albedo", "fixture · fixture-model")
	s.typeText("/model")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "This session uses fixture · fixture-model", "● fixture", "other", "big", "(new sessions)")
	s.InjectKey(tcell.KeyDown, 0, tcell.ModNone)
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "now on other · big (responses); new sessions use it too")
	if !f.seen(`POST /sessions/s1/commands {"name":"/model","args":{"model":"big","provider":"other"}}`) {
		t.Errorf("no switch sent; requests: %q", f.requests)
	}
}

func TestConsoleModelListsTheModelsAProviderServes(t *testing.T) {
	f := newFakeDaemon(t)
	asked := make(chan string, 4)
	opts := Options{Session: "s1",
		Providers: func(ctx context.Context) ([]Provider, error) {
			return []Provider{
				{Name: "fixture", BaseURL: "http://127.0.0.1:9/v1", Protocol: "chat_completions", Model: "fixture-model", Active: true},
				{Name: "other", BaseURL: "http://127.0.0.1:8/v1", Protocol: "responses", Model: "big"},
			}, nil
		},
		Models: func(ctx context.Context, provider string) ([]string, error) {
			asked <- provider
			if provider == "fixture" {
				return nil, errors.New("provider fixture answered 401")
			}
			return []string{"big", "bigger", "small"}, nil
		},
	}
	s, _ := startConsole(t, f, opts)
	s.waitFor(t, "Message albedo", "fixture · fixture-model")
	s.typeText("/model")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "This session uses fixture · fixture-model", "→ list the provider's models")
	// A provider that cannot list its models says why.
	s.InjectKey(tcell.KeyRight, 0, tcell.ModNone)
	s.waitFor(t, "fixture did not list its models: provider fixture answered 401")
	s.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
	s.waitFor(t, "This session uses fixture · fixture-model")
	s.InjectKey(tcell.KeyDown, 0, tcell.ModNone)
	s.InjectKey(tcell.KeyRight, 0, tcell.ModNone)
	s.waitFor(t, "other serves 3 models", "big (configured)", "bigger", "small")
	if got := []string{<-asked, <-asked}; got[0] != "fixture" || got[1] != "other" {
		t.Errorf("asked %q for their models, want fixture then other", got)
	}
	s.InjectKey(tcell.KeyDown, 0, tcell.ModNone)
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitUntil(t, "the switch", func() bool {
		return f.seen(`POST /sessions/s1/commands {"name":"/model","args":{"model":"bigger","provider":"other"}}`)
	})
}

func TestConsoleReconnectedNoticePasses(t *testing.T) {
	clock := &fakeClock{now: time.UnixMilli(1_000_000)}
	tick := make(chan time.Time)
	f := newFakeDaemon(t)
	s, _ := startConsole(t, f, Options{Session: "s1", Clock: clock.Now, Tick: tick})
	s.waitFor(t, "Message albedo", "fixture · fixture-model") // subscribed
	f.dropStreams()
	s.waitFor(t, "reconnected to the daemon")
	clock.advance(4 * time.Second)
	tick <- clock.Now()
	s.waitFor(t, "reconnected to the daemon")
	clock.advance(2 * time.Second)
	tick <- clock.Now()
	waitUntil(t, "the notice to go", func() bool { return !strings.Contains(s.text(), "reconnected") })
}

func TestConsoleCompletesSlashCommands(t *testing.T) {
	f := newFakeDaemon(t)
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "Message albedo")
	s.typeText("/wo")
	s.InjectKey(tcell.KeyTab, 0, tcell.ModNone)
	s.typeText("x")
	s.waitFor(t, "❯ /workspace x")
	s.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl) // clears the input
	s.typeText("/s")
	s.InjectKey(tcell.KeyTab, 0, tcell.ModNone)
	s.waitFor(t, "/sessions")
}

func TestConsoleOffersToSendEditOrDropWaitingMessages(t *testing.T) {
	f := newFakeDaemon(t)
	f.onSend = func(f *fakeDaemon, id, text string) bool {
		f.publish(id, wire.Event{Type: "queued", Text: text, QueueID: int64(len(text))})
		return true
	}
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "Message albedo", "fixture · fixture-model")
	for _, text := range []string{"one", "three"} {
		s.typeText(text)
		s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
		s.waitFor(t, "⧗ "+text)
	}
	s.waitFor(t, "2 messages waiting: Enter sends · Ctrl-E edits · Ctrl-X drops")
	s.InjectKey(tcell.KeyCtrlX, 0, tcell.ModCtrl)
	waitUntil(t, "the drop", func() bool { return f.seen("DELETE /sessions/s1/queue/5") })
	f.publish("s1", wire.Event{Type: "unqueued", QueueID: 5})
	s.waitFor(t, "dropped the last queued one", "1 queued")
	s.InjectKey(tcell.KeyCtrlE, 0, tcell.ModCtrl)
	waitUntil(t, "the edit", func() bool { return f.seen("DELETE /sessions/s1/queue/3") })
	s.waitFor(t, "❯ one", "editing the last queued message")
	s.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl) // clears the input
	f.publish("s1", wire.Event{Type: "unqueued", QueueID: 3}, wire.Event{Type: "queued", Text: "again", QueueID: 9})
	screen := s.waitFor(t, "⧗ again")
	if strings.Contains(screen, "⧗ one") {
		t.Errorf("the edited message still shows as queued:\n%s", screen)
	}
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitUntil(t, "the send", func() bool { return f.seen("POST /sessions/s1/queue/send") })
}
func tokenCount(n int64) *int64 { return &n }

func percent(p float64) *float64 { return &p }

func TestPickerShowsAHintWhole(t *testing.T) {
	f := newFakeDaemon(t)
	f.createErr = map[string]any{"code": "no_provider",
		"error": "no model provider is configured: add one with /login in the console, or in a shell with\n    albedo login"}
	s, _ := startConsole(t, f, Options{Workspace: "/w"}) // no SaveProvider: no form to open
	s.waitFor(t, "2 sessions")
	s.typeText("n")
	screen := s.waitFor(t, "no model provider is configured")
	if !strings.Contains(screen, "\n    albedo login") {
		t.Errorf("the hint's command is not on a line of its own:\n%s", screen)
	}
}

func TestConsoleNamesTheDaemonRunningASession(t *testing.T) {
	f := newFakeDaemon(t)
	f.nodes["s2"] = "build-box"
	f.onSend = func(f *fakeDaemon, id, text string) bool {
		f.mu.Lock()
		f.nodes[id] = "build-box"
		f.mu.Unlock()
		f.publish(id, statusEvent(true), wire.Event{Type: "user", Seq: 1, Text: text})
		return false
	}
	s, _ := startConsole(t, f, Options{Workspace: "/w"})
	// The picker says where a running session runs, and nothing of an
	// idle one.
	screen := s.waitFor(t, "running on build-box", "older")
	if strings.Count(screen, "build-box") != 1 {
		t.Errorf("the node shows beside more than the running session:\n%s", screen)
	}
	s.InjectKey(tcell.KeyDown, 0, tcell.ModNone)
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	screen = s.waitFor(t, "Message albedo", "○ idle")
	if strings.Contains(screen, "build-box") {
		t.Errorf("an idle session's header names a node:\n%s", screen)
	}
	// Once its turn starts, the header names the daemon running it.
	s.typeText("go")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "· on build-box", "running")
	f.mu.Lock()
	delete(f.nodes, "s1")
	f.mu.Unlock()
	f.publish("s1", wire.Event{Type: "turn", Seq: 2, Status: "finished"}, statusEvent(false))
	waitUntil(t, "the header to leave the node out once the turn ended", func() bool { return !strings.Contains(s.text(), "build-box") })
}

func TestConsoleSaysWhenNoDaemonCanRunASession(t *testing.T) {
	f := newFakeDaemon(t)
	f.running = true
	f.events["s1"] = []wire.Event{statusEvent(true), {Type: "user", Seq: 1, Text: "go"}}
	f.glances["s1"] = []map[string]any{{"extension": "orphaned", "workspace": "/home/ann/src/x", "last_node": "laptop", "expired_ms": 31250}}
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "⚠ no daemon has /home/ann/src/x")
	// Once a daemon takes the turn over, the glance goes with the turn's
	// end read again.
	f.mu.Lock()
	delete(f.glances, "s1")
	f.mu.Unlock()
	f.publish("s1", wire.Event{Type: "turn", Seq: 2, Status: "finished"}, statusEvent(false))
	waitUntil(t, "the warning to go", func() bool { return !strings.Contains(s.text(), "no daemon has") })
}
