package console

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// pickerScreen lists the sessions for the user to open one.
type pickerScreen struct {
	c      *Console
	root   *tview.Flex
	table  *tview.Table
	status *tview.TextView
	help   *tview.TextView
	// loads counts listings asked for: only the last one asked is shown,
	// so that a search typed fast ends on its own results.
	loads int
	// sessions are the rows of the table, most recent first.
	sessions []wire.Session
	// manage holds the delete, archive and search keys' state.
	manage pickerManage
}

func newPickerScreen(c *Console) *pickerScreen {
	p := &pickerScreen{c: c}
	p.table = listTable()
	p.table.SetInputCapture(p.keys)
	p.table.SetSelectedFunc(func(row, _ int) { p.openRow(row) })
	p.status = textView("")
	p.help = textView("").SetWrap(false)
	p.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(header("sessions"), 1, 0, false).
		AddItem(p.table, 0, 1, true).
		AddItem(p.status, 1, 0, false).
		AddItem(p.help, 1, 0, false)
	p.manage.search = p.newSearch()
	return p
}

// fitStatus gives the status line the rows its text takes, so that a
// message, such as a hint naming a command on a line of its own, is never
// cut at the window's edge. It runs before each frame.
func (p *pickerScreen) fitStatus() {
	_, _, w, _ := p.table.GetInnerRect()
	if w <= 0 {
		w = 80 // not drawn yet
	}
	rows := len(wrap(p.status.GetText(true), w))
	p.root.ResizeItem(p.status, min(max(rows, 1), maxStatusRows), 0)
	keys := keyBar(pickerKeys(), w)
	p.help.SetText(strings.Join(keys, "\n"))
	p.root.ResizeItem(p.help, len(keys), 0)
}

// pickerKeys are the picker's key bar.
func pickerKeys() []keyHint {
	return []keyHint{
		{"Enter open", ""},
		{"n new session here", "n new"},
		{"d delete", "d del"},
		{"a archive", ""},
		{"u undo", ""},
		{"A archived", ""},
		{"/ search", ""},
		{"v vents", ""},
		{"r reload", ""},
		{"Esc clear/quit", "Esc back"},
	}
}

// maxStatusRows bounds the picker's status line.
const maxStatusRows = 6

// load fetches the sessions.
func (p *pickerScreen) load() { p.loadThen(nil) }

// loadThen fetches the sessions, then runs then (when set) once they are
// shown.
func (p *pickerScreen) loadThen(then func()) {
	p.status.SetText("[::d]loading…")
	cl := p.c.client()
	p.loads++
	n, filter := p.loads, wire.SessionFilter{Query: p.manage.query}
	if p.manage.archived {
		filter.Archived = "all"
	}
	go func() {
		sessions, _, err := cl.FindSessions(p.c.ctx, filter)
		p.c.mail.post(func() {
			if n != p.loads {
				return // a later listing was asked for
			}
			if err != nil {
				p.status.SetText("[red]" + tview.Escape(describe(err)))
				return
			}
			slices.SortStableFunc(sessions, func(a, b wire.Session) int { return cmp.Compare(b.UpdatedAt, a.UpdatedAt) })
			p.sessions = sessions
			p.fill()
			if then != nil {
				then()
			}
		})
	}()
}

// fill shows the sessions in the table.
func (p *pickerScreen) fill() {
	clearTable(p.table, "STATE", "UPDATED", "TITLE", "WORKSPACE", "PROVIDER", "MODEL")
	now := time.Now()
	for r, s := range p.sessions {
		state := tview.NewTableCell("idle").SetTextColor(tcell.ColorGreen)
		switch {
		case s.Stage == "running" && s.Node != "":
			state = tview.NewTableCell("running on " + tview.Escape(s.Node)).SetTextColor(tcell.ColorOlive).SetMaxWidth(32)
		case s.Stage == "running":
			state = tview.NewTableCell("running").SetTextColor(tcell.ColorOlive)
		case s.Archived:
			state = tview.NewTableCell("archived").SetTextColor(tcell.ColorGray)
		}
		title := s.Title
		if s.Name != "" {
			title = s.Name + ": " + title
		}
		cells := []*tview.TableCell{
			state,
			tview.NewTableCell(ago(now, s.Updated())),
			tview.NewTableCell(tview.Escape(title)).SetMaxWidth(48).SetExpansion(1),
			tview.NewTableCell(tview.Escape(tildePath(s.Workspace))).SetMaxWidth(40),
			tview.NewTableCell(tview.Escape(s.Provider)),
			tview.NewTableCell(tview.Escape(s.Model)),
		}
		for i, cell := range cells {
			p.table.SetCell(r+1, i, cell)
		}
	}
	if len(p.sessions) == 0 && p.manage.query != "" {
		p.status.SetText("no session matches " + tview.Escape(p.manage.query) + ": / to search again, Esc to clear the search")
		return
	}
	if len(p.sessions) == 0 {
		p.status.SetText("no sessions yet: press n to start one in " + tview.Escape(tildePath(p.c.opts.Workspace)))
		p.sayNote()
		return
	}
	shown := plural(len(p.sessions), "session")
	if p.manage.archived {
		shown += ", archived ones included (A hides them)"
	}
	if p.manage.query != "" {
		shown += " matching " + tview.Escape(p.manage.query) + " (Esc clears the search)"
	}
	p.status.SetText("[::d]" + shown)
	p.table.Select(1, 0)
	p.sayNote()
}

// sayNote shows the console's picker note, once.
func (p *pickerScreen) sayNote() {
	if note := p.c.opts.PickerNote; note != "" {
		p.status.SetText("[yellow]" + tview.Escape(note))
		p.c.opts.PickerNote = ""
	}
}

// openRow opens the session of a table row.
func (p *pickerScreen) openRow(row int) {
	if s, ok := rowItem(p.sessions, row); ok {
		p.c.session.open(s.ID)
	}
}

// keys handles the picker's keys.
func (p *pickerScreen) keys(ev *tcell.EventKey) *tcell.EventKey {
	if p.manage.confirming(p, ev) {
		return nil
	}
	if ev.Key() == tcell.KeyEscape {
		switch {
		case p.manage.query != "":
			p.clearSearch()
		case p.c.session.id != "":
			p.c.showSession()
		default:
			p.c.quit()
		}
		return nil
	}
	if ev.Key() != tcell.KeyRune {
		return ev
	}
	switch ev.Rune() {
	case 'q':
		p.c.quit()
	case 'r':
		p.load()
	case 'v':
		p.c.showVents()
	case 'n':
		p.create()
	case 'd':
		p.askDelete()
	case 'a':
		p.askArchive()
	case 'u':
		p.undoArchive()
	case 'A':
		p.toggleArchived()
	case '/':
		p.startSearch()
	default:
		return ev
	}
	return nil
}

// create makes a session in the console's workspace and opens it.
func (p *pickerScreen) create() {
	ws := p.c.opts.Workspace
	if ws == "" {
		p.status.SetText("[red]no folder to start a session in")
		return
	}
	cl := p.c.client()
	p.status.SetText("[::d]creating a session in " + tview.Escape(ws) + "…")
	go func() {
		s, err := cl.CreateSession(p.c.ctx, ws, "")
		p.c.mail.post(func() {
			if noProvider(err) && p.c.canLogin() {
				p.status.SetText("")
				p.c.onboard(ws)
				return
			}
			if err != nil {
				p.status.SetText("[red]" + tview.Escape(describe(err)))
				return
			}
			p.c.session.open(s.ID)
		})
	}()
}

// ago says briefly how long ago t was.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero() || d < 0:
		return ""
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Format(time.DateOnly)
}
