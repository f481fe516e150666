package console

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Options configure a console.
type Options struct {
	// Dial reaches the daemon, starting it when none runs. The console
	// calls it again whenever its connection drops.
	Dial func(ctx context.Context) (*client.Client, error)
	// Session is the session to open. When empty, the console makes a new
	// session in NewSession if that is set, and shows the session picker
	// otherwise.
	Session    string
	NewSession string
	// Workspace is where the picker makes new sessions; usually the
	// current folder.
	Workspace string
	// PickerNote, when set, is what the picker says once it first lists
	// the sessions, in place of its count: why it opened, say.
	PickerNote string
	// Screen is what the console draws on; nil means the terminal.
	Screen tcell.Screen
	// Clock tells the time for the elapsed times shown; nil means
	// time.Now. Tick, when set, replaces the ticker that animates the
	// activity indicator: each receive redraws it.
	Clock func() time.Time
	Tick  <-chan time.Time
	// SaveProvider adds or updates a model provider and makes it active,
	// as albedo login does; nil leaves the console without its login form.
	// An empty APIKey keeps the key saved for the provider, if any.
	SaveProvider func(ctx context.Context, p Login) error
	// NoMouse leaves the mouse to the terminal, for its own selection:
	// the wheel then no longer scrolls the transcript.
	NoMouse bool
	// Providers lists the configured providers; nil when unknown.
	Providers func(ctx context.Context) ([]Provider, error)
	// Models lists the models a configured provider serves (GET
	// {baseUrl}/models); nil leaves /model's picker to the providers'
	// configured models.
	Models func(ctx context.Context, provider string) ([]string, error)
}

// Result is how a console ended.
type Result struct {
	// Session is the session that was open when the user left, or "".
	Session string
}

// Page names.
const (
	pageSession = "session"
	pagePicker  = "picker"
	pageVents   = "vents"
	pageLogin   = "login"
	pageModels  = "models"
)

// Console is a running console: one tview application and its screens.
type Console struct {
	ctx  context.Context
	opts Options
	app  *tview.Application
	// pages holds the session, picker and vents screens.
	pages *tview.Pages
	mail  *mailbox
	th    *theme

	session *sessionScreen
	picker  *pickerScreen
	vents   *ventsScreen
	login   *loginScreen
	models  *modelsScreen

	// mu guards cl, which the stream goroutines replace on reconnect.
	mu sync.Mutex
	cl *client.Client

	// animating is set while the open session runs a turn: the indicator
	// moves.
	animating atomic.Bool

	result Result
}

// Run shows the console until the user leaves it or ctx is done. The daemon
// is reached, and a new session made, before the screen is taken over, so
// that those errors print plainly.
func Run(ctx context.Context, opts Options) (Result, error) {
	if opts.Dial == nil {
		return Result{}, errors.New("console: Options.Dial is required")
	}
	cl, err := opts.Dial(ctx)
	if err != nil {
		return Result{}, err
	}
	id, onboard := opts.Session, false
	if id == "" && opts.NewSession != "" {
		s, err := cl.CreateSession(ctx, opts.NewSession, "")
		switch {
		case noProvider(err) && opts.SaveProvider != nil:
			onboard = true // the login form comes first
		case err != nil:
			return Result{}, err
		}
		id = s.ID
	} else if id != "" {
		if _, err := cl.Session(ctx, id, 0); err != nil {
			return Result{}, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &Console{ctx: ctx, opts: opts, app: tview.NewApplication(), pages: tview.NewPages(), th: defaultTheme(), cl: cl}
	c.mail = &mailbox{app: c.app}
	defer c.mail.close()
	c.session = newSessionScreen(c)
	c.picker = newPickerScreen(c)
	c.vents = newVentsScreen(c)
	c.login = newLoginScreen(c)
	c.models = newModelsScreen(c)
	c.pages.AddPage(pageSession, c.session.root, true, false)
	c.pages.AddPage(pagePicker, c.picker.root, true, false)
	c.pages.AddPage(pageVents, c.vents.root, true, false)
	c.pages.AddPage(pageLogin, c.login.root, true, false)
	c.pages.AddPage(pageModels, c.models.root, true, false)
	if opts.Screen != nil {
		c.app.SetScreen(opts.Screen)
	}
	c.app.EnableMouse(!opts.NoMouse).EnablePaste(true).SetRoot(c.pages, true).SetInputCapture(c.keys)
	c.app.SetBeforeDrawFunc(func(tcell.Screen) bool {
		c.session.fitInput()
		c.picker.fitStatus()
		return false
	})
	c.app.SetAfterDrawFunc(func(tcell.Screen) {
		// A resize changes the status line's width: fit it again.
		if _, _, w, _ := c.session.status.GetInnerRect(); w != c.session.statusWidth && c.session.id != "" {
			c.session.refresh()
			go c.app.Draw()
		}
	})
	switch {
	case onboard:
		c.onboard(opts.NewSession)
	case id != "":
		c.session.open(id)
	default:
		c.showPicker()
	}
	go func() {
		<-ctx.Done()
		c.app.Stop()
	}()
	go c.animate(ctx)
	if err := c.app.Run(); err != nil {
		return Result{}, fmt.Errorf("run the console: %w", err)
	}
	return c.result, nil
}

// now returns the time of the console's clock.
func (c *Console) now() time.Time {
	if c.opts.Clock != nil {
		return c.opts.Clock()
	}
	return time.Now()
}

// animate redraws the status line at every tick while a turn runs.
func (c *Console) animate(ctx context.Context) {
	tick := c.opts.Tick
	if tick == nil {
		t := time.NewTicker(frameTime)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			if c.animating.Load() {
				c.mail.post(c.session.refresh)
			}
		}
	}
}

// client returns the current client of the daemon.
func (c *Console) client() *client.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cl
}

// redial reaches the daemon again and makes that the current client.
func (c *Console) redial(ctx context.Context) (*client.Client, error) {
	cl, err := c.opts.Dial(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.cl = cl
	c.mu.Unlock()
	return cl, nil
}

// keys handles the keys that work everywhere.
func (c *Console) keys(ev *tcell.EventKey) *tcell.EventKey {
	switch ev.Key() {
	case tcell.KeyCtrlD:
		if name, _ := c.pages.GetFrontPage(); name == pageSession && c.session.input.GetText() != "" {
			// A draft is never thrown away by a detach.
			c.session.setNote("clear the message first (Ctrl-C) to detach with Ctrl-D, or use /quit", false)
			c.session.refresh()
			return nil
		}
		c.quit()
		return nil
	case tcell.KeyCtrlC:
		if name, _ := c.pages.GetFrontPage(); name == pageSession {
			c.session.ctrlC()
		} else {
			c.quit()
		}
		return nil
	}
	return ev
}

// quit leaves the console; an open session goes on in the daemon.
func (c *Console) quit() {
	c.result.Session = c.session.id
	c.app.Stop()
}

// showSession brings the session screen forward.
func (c *Console) showSession() {
	c.pages.SwitchToPage(pageSession)
	c.app.SetFocus(c.session.input)
}

// showPicker brings the session picker forward and reloads it.
func (c *Console) showPicker() {
	c.pages.SwitchToPage(pagePicker)
	c.app.SetFocus(c.picker.table)
	c.picker.load()
}

// showVents brings the vent ledger forward and reloads it.
func (c *Console) showVents() {
	c.vents.back = pagePicker
	if c.session.id != "" {
		c.vents.back = pageSession
	}
	c.pages.SwitchToPage(pageVents)
	c.app.SetFocus(c.vents.table)
	c.vents.load(false)
}

// back returns from the vents screen to where it was opened from.
func (c *Console) back(page string) {
	if page == pageSession && c.session.id != "" {
		c.showSession()
		return
	}
	c.showPicker()
}

// header is a screen's title bar: albedo, then what the screen shows.
func header(title string) *tview.TextView {
	h := textView("[white::b] albedo [-::-][white] " + title)
	h.SetBackgroundColor(tcell.ColorNavy)
	return h
}

// listTable is a table to pick one row of, under a row of column titles.
func listTable() *tview.Table {
	t := tview.NewTable().SetSelectable(true, false).SetFixed(1, 0).SetSeparator(' ')
	t.SetSelectedStyle(tcell.StyleDefault.Reverse(true))
	plain(t.Box)
	return t
}

// rowItem returns the item a list table's row shows: row 1, under the
// titles, shows items[0].
func rowItem[T any](items []T, row int) (item T, ok bool) {
	if row < 1 || row > len(items) {
		return item, false
	}
	return items[row-1], true
}

// clearTable empties a list table down to its row of column titles.
func clearTable(t *tview.Table, titles ...string) {
	t.Clear()
	for i, title := range titles {
		t.SetCell(0, i, tview.NewTableCell(title).SetSelectable(false).SetAttributes(tcell.AttrBold))
	}
}

// plain gives a primitive the terminal's own background.
func plain(b *tview.Box) *tview.Box {
	return b.SetBackgroundColor(tcell.ColorDefault)
}

// textView is a text view of text with colour tags, on the terminal's own
// background.
func textView(text string) *tview.TextView {
	v := tview.NewTextView().SetDynamicColors(true).SetText(text)
	plain(v.Box)
	return v
}
