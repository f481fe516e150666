package console

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Input heights, in rows.
const (
	minInputRows = 1
	maxInputRows = 8
)

// queuedNote is the status line's note for a message the daemon queued.
const queuedNote = "your message is queued for the next model request"

// sessionScreen shows one session: its transcript, a status line and the
// input. It follows the session's event stream in a goroutine and
// resubscribes when the stream drops.
type sessionScreen struct {
	c      *Console
	root   *tview.Flex
	header *tview.TextView
	view   *TranscriptView
	status *tview.TextView
	input  *tview.TextArea
	help   *tview.TextView

	// id is the open session, "" before one is opened.
	id   string
	info wire.Session
	// pendingReplies counts vent replies waiting for the session.
	pendingReplies int
	// sandbox is the sandbox glance of the session, if any.
	sandbox wire.Glance
	// jobs counts the background jobs the session's kernel runs, as the
	// daemon last said.
	jobs int
	// orphaned is the folder of a running session no daemon sharing the
	// store can take over, as its orphaned glance says; "" when it has
	// none.
	orphaned string
	// greeting is a notice to show once the session's first snapshot is in.
	greeting string
	t        *Transcript
	// gen counts opens; work posted for an earlier open is dropped.
	gen    int
	cancel context.CancelFunc
	hist   inputHistory
	// conn says how the stream is: "" when fine.
	conn    string
	connErr bool
	// note is a passing message for the status line.
	note    string
	noteErr bool
	// inputFits says the input's text fits in its rows.
	inputFits bool
	// connAt is when conn was set: a passing "reconnected" goes after
	// passingNote.
	connAt time.Time
	// statusWidth is the width the status line was fitted to.
	statusWidth int
	// turnStart is when the running turn started, zero when idle.
	turnStart time.Time
}

func newSessionScreen(c *Console) *sessionScreen {
	s := &sessionScreen{c: c, t: &Transcript{}}
	s.header = header("").SetWrap(false)
	s.view = NewTranscriptView(s.t)
	plain(s.view.Box)
	s.status = textView("").SetWrap(false)
	s.input = tview.NewTextArea().SetLabel("❯ ").SetPlaceholder("Message albedo. Enter sends, /help lists commands.")
	s.input.SetTextStyle(tcell.StyleDefault).SetPlaceholderStyle(tcell.StyleDefault.Dim(true)).SetLabelStyle(c.th.user)
	plain(s.input.Box)
	s.input.SetChangedFunc(s.resizeInput)
	s.input.SetInputCapture(s.keys)
	s.help = textView("").SetWrap(false)
	s.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(s.header, 1, 0, false).
		AddItem(s.view, 0, 1, false).
		AddItem(s.status, 1, 0, false).
		AddItem(s.input, minInputRows, 0, true).
		AddItem(s.help, 1, 0, false)
	return s
}

// open shows a session and starts following its events.
func (s *sessionScreen) open(id string) {
	if s.cancel != nil {
		s.cancel()
	}
	s.gen++
	s.id, s.info, s.pendingReplies, s.greeting = id, wire.Session{ID: id}, 0, ""
	s.t = &Transcript{}
	s.view.SetTranscript(s.t)
	s.conn, s.note = "connecting…", ""
	ctx, cancel := context.WithCancel(s.c.ctx)
	s.cancel = cancel
	go s.follow(ctx, s.gen, id)
	s.refresh()
	s.c.showSession()
}

// post runs f on the event loop if the session is still the one open.
func (s *sessionScreen) post(gen int, f func()) {
	s.c.mail.post(func() {
		if s.gen == gen {
			f()
			s.refresh()
		}
	})
}

// follow subscribes to the session's stream and applies its events until
// ctx is done, reconnecting (dialling the daemon again, so a restarted one
// is found) whenever the stream drops. The first subscription's snapshot
// replaces the transcript; a reconnection resumes after the last event
// seen (Last-Event-ID), so its snapshot holds only what was missed.
func (s *sessionScreen) follow(ctx context.Context, gen int, id string) {
	cl := s.c.client()
	wait := 100 * time.Millisecond
	var last int64
	overflowed := false
	for attempt := 0; ; attempt++ {
		if attempt > 0 && !overflowed {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(wait*2, 2*time.Second)
			var err error
			if cl, err = s.c.redial(ctx); err != nil {
				s.post(gen, func() { s.setConn("daemon unreachable, retrying: "+err.Error(), true) })
				continue
			}
		}
		overflowed = false
		stream, err := cl.SubscribeFrom(ctx, id, client.SubscribeOptions{After: last})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if wire.ErrorCode(err) == wire.CodeNotFound {
				s.post(gen, func() { s.setConn("this session no longer exists", true) })
				return
			}
			s.post(gen, func() { s.setConn("connection lost, reconnecting…", true) })
			continue
		}
		detail, derr := cl.Session(ctx, id, 0)
		measure, merr := cl.Context(ctx, id)
		reconnected := attempt > 0
		resumed := last > 0
		s.post(gen, func() {
			if derr == nil {
				s.setInfo(detail)
				s.setUsage(detail.Session.Usage, measure, merr)
			}
			if resumed {
				s.t.DropLive()
				for _, ev := range stream.Snapshot {
					s.apply(ev)
				}
			} else {
				s.t.Reset(stream.Snapshot)
			}
			s.resumeTurn()
			if s.greeting != "" {
				s.t.Notice(s.greeting, false)
				s.greeting = ""
			}
			s.view.ScrollToEnd()
			if reconnected {
				s.setConn(reconnectedNote, false)
			} else {
				s.setConn("", false)
			}
		})
		wait = 100 * time.Millisecond
		deleted := false
		for ev, err := range stream.Events() {
			if err != nil {
				break
			}
			if ev.Type == wire.EventOverflow {
				overflowed = true
				break
			}
			if ev.Type == wire.EventDeleted {
				deleted = true
				break
			}
			s.post(gen, func() { s.apply(ev) })
		}
		last = stream.LastEventID()
		stream.Close()
		if ctx.Err() != nil {
			return
		}
		if deleted {
			s.post(gen, func() { s.setConn("this session was deleted", true) })
			return
		}
		if overflowed {
			continue
		}
		s.post(gen, func() { s.setConn("the daemon went away, reconnecting…", true) })
	}
}

// setInfo takes in what the daemon says of the session.
func (s *sessionScreen) setInfo(d wire.SessionDetail) {
	s.info = d.Session
	s.t.Running, s.t.Workspace = d.Running, d.Session.Workspace
	s.setGlances(d.Glances)
}

// setGlances takes in what the session's glances say: its sandbox, its
// kernel's running background jobs, the vent replies waiting for it and
// whether no daemon can run it.
func (s *sessionScreen) setGlances(glances []wire.Glance) {
	s.sandbox = findGlance(glances, "sandbox")
	s.orphaned, _ = findGlance(glances, "orphaned")["workspace"].(string)
	s.jobs, s.pendingReplies = 0, 0
	if n, ok := findGlance(glances, "jobs")["running"].(float64); ok {
		s.jobs = int(n)
	}
	if n, ok := findGlance(glances, "paperclips")["pending_replies"].(float64); ok {
		s.pendingReplies = int(n)
	}
}

// findGlance returns the glance of an extension, nil when there is none.
func findGlance(glances []wire.Glance, extension string) wire.Glance {
	for _, g := range glances {
		if g.Extension() == extension {
			return g
		}
	}
	return nil
}

// setUsage shows what the daemon says the session's requests cost and how
// full its context is; the live status events add to it from then on. A
// context the daemon could not tell (err) leaves the measure as it was.
func (s *sessionScreen) setUsage(totals wire.UsageTotals, measure wire.Context, err error) {
	u := &s.t.Usage
	u.Input, u.Output, u.Requests = totals.InputTokens, totals.OutputTokens, int(totals.Requests)
	if err == nil {
		u.Context, u.Window, u.Percent = 0, 0, 0
		u.measure(measure.Used, measure.Window, measure.Percent)
	}
}

// reloadSession reads the session's usage, context and glances again once
// a turn ended: requests the live events did not show (a summary, say)
// count too, the measure follows a compaction, and the status line the
// kernel's state. It reads them too when a turn starts, for the header
// to name the daemon running it.
func (s *sessionScreen) reloadSession() {
	gen, id, cl := s.gen, s.id, s.c.client()
	go func() {
		detail, err := cl.Session(s.c.ctx, id, 0)
		if err != nil {
			return
		}
		measure, merr := cl.Context(s.c.ctx, id)
		s.post(gen, func() {
			s.info.Node = detail.Session.Node
			s.setUsage(detail.Session.Usage, measure, merr)
			s.setGlances(detail.Glances)
		})
	}()
}

// trackTurn keeps turnStart as live events come: a turn starts when the
// session is seen to start running.
func (s *sessionScreen) trackTurn(wasRunning bool) {
	switch {
	case !s.t.Running:
		s.turnStart = time.Time{}
	case !wasRunning || s.turnStart.IsZero():
		s.turnStart = s.c.now()
	}
}

// resumeTurn sets turnStart for a session the console came to running:
// its turn started with the last message shown.
func (s *sessionScreen) resumeTurn() {
	s.turnStart = time.Time{}
	if s.t.Running {
		s.turnStart = s.c.now()
		if ms := s.t.LastUserTime(); ms > 0 {
			s.turnStart = time.UnixMilli(ms)
		}
	}
}

// apply shows one live event.
func (s *sessionScreen) apply(ev wire.Event) {
	wasRunning := s.t.Running
	s.t.Apply(ev)
	s.trackTurn(wasRunning)
	if ev.Type == wire.EventUser && ev.Source == "" {
		s.info.Title = strings.TrimSpace(ev.Text)
	}
	if ev.Type == wire.EventTurn || s.t.Running && !wasRunning {
		s.reloadSession()
	}
	switch {
	case ev.Type == wire.EventTurn && s.note == "interrupting…",
		ev.Type == wire.EventUser && s.note == queuedNote && len(s.t.Queued()) == 0:
		s.note = ""
	}
}

// setConn sets the connection part of the status line.
func (s *sessionScreen) setConn(text string, failed bool) {
	s.conn, s.connErr, s.connAt = text, failed, s.c.now()
}

// passingNote is how long "reconnected to the daemon" stays.
const passingNote = 5 * time.Second

// reconnectedNote says the stream came back.
const reconnectedNote = "reconnected to the daemon"

// setNote sets the passing message of the status line.
func (s *sessionScreen) setNote(text string, failed bool) { s.note, s.noteErr = text, failed }

// refresh redraws the header and the status line.
func (s *sessionScreen) refresh() {
	title := s.info.Title
	if s.info.Name != "" {
		title = s.info.Name
	}
	if title == "" {
		title = "new session"
	}
	head := fmt.Sprintf("[white::b] albedo [-::-][white] %s [::d]· %s · %s[-::-]", tview.Escape(truncate(title, 60)), tview.Escape(tildePath(s.info.Workspace)), s.id)
	if s.t.Running && s.info.Node != "" {
		head += fmt.Sprintf(" [::d]· on %s[-::-]", tview.Escape(s.info.Node))
	}
	if s.t.Running && s.orphaned != "" {
		head += fmt.Sprintf(" [yellow]⚠ no daemon has %s[-]", tview.Escape(tildePath(s.orphaned)))
	}
	if s.pendingReplies > 0 {
		head += fmt.Sprintf(" [yellow]✉ %s pending[-]", plural(s.pendingReplies, "vent reply"))
	}
	s.header.SetText(head)
	line := statusLine{
		Provider: s.info.Provider, Model: s.info.Model, Running: s.t.Running, Usage: s.t.Usage, Retry: s.t.Retry,
		Conn: s.conn, ConnFailed: s.connErr, Note: s.note, NoteFailed: s.noteErr,
		Queued: len(s.t.Queued()), Jobs: s.jobs, Scrolled: !s.view.Following(), Detail: s.view.Detail(),
	}
	line.Sandbox, line.SandboxShort = sandboxText(s.sandbox)
	if s.waiting() && (s.note == "" || s.note == queuedNote || s.note == "interrupted") {
		line.Note, line.Queued, line.Prompt = "", 0, queuePrompt(len(s.t.Queued()))
	}
	passing := s.conn == reconnectedNote
	if passing && s.c.now().Sub(s.connAt) >= passingNote {
		s.conn, passing = "", false
		line.Conn = ""
	}
	if s.t.Running {
		now := s.c.now()
		if !s.turnStart.IsZero() {
			line.Turn = now.Sub(s.turnStart)
		}
		if ms := s.t.RunningCellTime(); ms > 0 {
			line.InCell, line.Cell = true, now.Sub(time.UnixMilli(ms))
		}
	}
	s.c.animating.Store((s.t.Running || passing) && s.id != "")
	_, _, w, _ := s.status.GetInnerRect()
	s.statusWidth = w
	text, rows := statusText(line, w)
	s.status.SetText(text)
	s.root.ResizeItem(s.status, rows, 0)
	keys := keyBar(sessionKeys(), w)
	s.help.SetText(strings.Join(keys, "\n"))
	s.root.ResizeItem(s.help, len(keys), 0)
}

// sessionKeys are the session screen's key bar.
func sessionKeys() []keyHint {
	return []keyHint{
		{"Enter send", ""},
		{"Alt-Enter/Ctrl-J newline", "^J newline"},
		{"Esc/Ctrl-C interrupt", "Esc stop"},
		{"PgUp/PgDn scroll", "PgUp scroll"},
		{"Ctrl-T details", "^T details"},
		{"Ctrl-D detach", "^D detach"},
		{"/help", ""},
	}
}

// keys handles the session screen's keys; the input gets the rest.
func (s *sessionScreen) keys(ev *tcell.EventKey) *tcell.EventKey {
	switch key := ev.Key(); {
	case key == tcell.KeyEnter && ev.Modifiers()&tcell.ModAlt != 0, key == tcell.KeyCtrlJ:
		return tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone) // a newline
	case key == tcell.KeyEnter && s.waiting() && strings.TrimSpace(s.input.GetText()) == "":
		s.sendQueued()
		return nil
	case key == tcell.KeyCtrlE && s.waiting() && s.input.GetText() == "":
		b := s.t.LastQueued()
		s.input.SetText(b.Text, true)
		s.dropQueued(b.QueueID, "editing the last queued message")
		return nil
	case key == tcell.KeyCtrlX && s.waiting():
		s.dropQueued(s.t.LastQueued().QueueID, "dropped the last queued one")
		return nil
	case key == tcell.KeyEnter:
		s.submit()
		return nil
	case key == tcell.KeyTab:
		if text := s.input.GetText(); strings.HasPrefix(text, "/") && !strings.ContainsAny(text, " \n") {
			s.complete(text)
			return nil
		}
	case key == tcell.KeyEscape:
		s.interrupt()
		return nil
	case key == tcell.KeyCtrlT:
		s.view.SetDetail(!s.view.Detail())
		s.refresh()
		return nil
	case key == tcell.KeyPgUp, key == tcell.KeyUp && ev.Modifiers()&tcell.ModShift != 0:
		s.scroll(key, -1)
		return nil
	case key == tcell.KeyPgDn, key == tcell.KeyDown && ev.Modifiers()&tcell.ModShift != 0:
		s.scroll(key, 1)
		return nil
	case key == tcell.KeyUp:
		if row, _, _, _ := s.input.GetCursor(); row == 0 {
			if text, ok := s.hist.prev(s.input.GetText()); ok {
				s.input.SetText(text, true)
			}
			return nil
		}
	case key == tcell.KeyDown:
		if row, _, _, _ := s.input.GetCursor(); s.hist.browsing() && row == strings.Count(s.input.GetText(), "\n") {
			if text, ok := s.hist.next(); ok {
				s.input.SetText(text, true)
			}
			return nil
		}
	}
	return ev
}

// waiting reports whether messages wait in the queue of an idle session
// (an interrupt or a failure left them): the console offers to send,
// edit or drop them.
func (s *sessionScreen) waiting() bool {
	return !s.t.Running && s.id != "" && s.t.LastQueued() != nil
}

// queuePrompt is what the status line offers while messages wait.
func queuePrompt(n int) string {
	return plural(n, "message") + " waiting: Enter sends · Ctrl-E edits · Ctrl-X drops"
}

// sendQueued starts a turn on the waiting messages.
func (s *sessionScreen) sendQueued() {
	id := s.id
	s.setNote("sending the queued messages…", false)
	s.refresh()
	s.noting(func(cl *client.Client) error {
		_, err := cl.SendQueued(s.c.ctx, id)
		return err
	}, func() { s.setNote("", false) })
}

// dropQueued removes a waiting message; done is the note once it went.
func (s *sessionScreen) dropQueued(queueID int64, done string) {
	id := s.id
	s.noting(func(cl *client.Client) error { return cl.DropQueued(s.c.ctx, id, queueID) }, func() { s.setNote(done, false) })
}

// noting runs call off the event loop; back on it, for the same open, a
// failure becomes the status line's note and a success runs done.
func (s *sessionScreen) noting(call func(cl *client.Client) error, done func()) {
	gen, cl := s.gen, s.c.client()
	go func() {
		err := call(cl)
		s.post(gen, func() {
			if err != nil {
				s.setNote(describe(err), true)
				return
			}
			done()
		})
	}()
}

// scroll moves the transcript by a page or, with Shift, a row.
func (s *sessionScreen) scroll(key tcell.Key, dir int) {
	n := 1
	if key == tcell.KeyPgUp || key == tcell.KeyPgDn {
		n = s.view.PageSize()
	}
	s.view.ScrollBy(dir * n)
	s.refresh()
}

// resizeInput fits the input's height to its text.
func (s *sessionScreen) resizeInput() {
	_, _, w, _ := s.input.GetInnerRect()
	rows := len(wrap(s.input.GetText(), max(1, w-2)))
	s.root.ResizeItem(s.input, min(max(rows, minInputRows), maxInputRows), 0)
	s.inputFits = rows <= maxInputRows
}

// fitInput shows an input that fits from its top row. It runs before each
// frame: a paste scrolls the input to its cursor at the height it had
// before the paste grew it, leaving only the last line in sight.
func (s *sessionScreen) fitInput() {
	if s.inputFits {
		s.input.SetOffset(0, 0)
	}
}

// ctrlC interrupts a running turn, or clears the input.
func (s *sessionScreen) ctrlC() {
	switch {
	case s.t.Running:
		s.interrupt()
	case s.input.GetText() != "":
		s.input.SetText("", false)
	default:
		s.setNote("Ctrl-D or /quit detaches; the session stays in the daemon", false)
		s.refresh()
	}
}

// submit sends the input as a message, or runs it as a command.
func (s *sessionScreen) submit() {
	text := s.input.GetText()
	if strings.TrimSpace(text) == "" {
		return
	}
	s.hist.add(text)
	s.input.SetText("", false)
	if !s.connErr {
		s.conn = "" // a passing "reconnected" has been seen
	}
	cmd, isCmd, err := parseCommand(text)
	switch {
	case isCmd && err != nil:
		s.t.Notice(err.Error(), true)
	case isCmd:
		s.run(cmd)
	default:
		s.send(unescapeMessage(text))
	}
	s.view.ScrollToEnd()
	s.refresh()
}

// send gives the session a message.
func (s *sessionScreen) send(text string) {
	gen, id, cl := s.gen, s.id, s.c.client()
	s.setNote("sending…", false)
	go func() {
		queued, err := cl.Send(s.c.ctx, id, text, nil)
		s.post(gen, func() {
			switch {
			case err != nil:
				s.setNote("", false)
				s.t.Notice(describe(err), true)
				if s.input.GetText() == "" {
					s.input.SetText(text, true) // nothing is lost
				}
			case queued:
				s.setNote(queuedNote, false)
			default:
				s.setNote("", false)
			}
		})
	}()
}

// interrupt stops the running turn.
func (s *sessionScreen) interrupt() {
	if !s.t.Running {
		s.setNote("nothing to interrupt", false)
		s.refresh()
		return
	}
	id := s.id
	s.setNote("interrupting…", false)
	s.refresh()
	s.noting(func(cl *client.Client) error { return cl.Interrupt(s.c.ctx, id) }, func() {
		if s.note == "interrupting…" {
			s.setNote("interrupted", false)
		}
	})
}

// tildePath shortens a path under the user's home to ~/...
func tildePath(p string) string {
	dir, err := os.UserHomeDir()
	if err != nil || dir == "" || dir == "/" {
		return p
	}
	if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join("~", rel)
	}
	return p
}

// describe says what went wrong in words for the transcript.
func describe(err error) string {
	var e *client.Error
	if errors.As(err, &e) {
		if e.Code == wire.CodeWorkspaceMissing {
			return e.Message + " (/workspace PATH moves the session)"
		}
		return e.Message
	}
	return err.Error()
}
