package console

import (
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// pickerManage is the picker's state for deleting, archiving and
// searching sessions.
type pickerManage struct {
	// pending, when set, is a deletion or an archiving waiting for y.
	pending *pendingChange
	// undo, when set, is the session last archived: u brings it back.
	undo *wire.Session
	// query filters the listing as it is typed; search is where.
	query  string
	search *tview.InputField
	// archived shows the archived sessions too.
	archived bool
}

// pendingChange is a change of a session that waits for y.
type pendingChange struct {
	session wire.Session
	// archive is true for an archiving, false for a deletion.
	archive bool
}

// selected returns the session of the selected row.
func (p *pickerScreen) selected() (wire.Session, bool) {
	row, _ := p.table.GetSelection()
	return rowItem(p.sessions, row)
}

// askDelete asks to confirm deleting the selected session.
func (p *pickerScreen) askDelete() {
	s, ok := p.selected()
	if !ok {
		return
	}
	if s.Stage == "running" {
		p.status.SetText("[red]" + tview.Escape(pickerLabel(s)) + " is running a turn: interrupt it before deleting it")
		return
	}
	p.manage.pending = &pendingChange{session: s}
	p.status.SetText("[yellow]delete " + tview.Escape(pickerLabel(s)) + " and its whole transcript? y deletes, any other key keeps it")
}

// askArchive asks to confirm archiving the selected session; an archived
// one (shown with A) is brought back at once.
func (p *pickerScreen) askArchive() {
	s, ok := p.selected()
	if !ok {
		return
	}
	if s.Archived {
		p.setArchived(s, false)
		return
	}
	p.manage.pending = &pendingChange{session: s, archive: true}
	p.status.SetText("[yellow]archive " + tview.Escape(pickerLabel(s)) + "? The listing leaves it out (A shows archived sessions, u undoes). y archives, any other key keeps it")
}

// confirming takes the key that answers a pending change, and reports
// whether there was one.
func (m *pickerManage) confirming(p *pickerScreen, ev *tcell.EventKey) bool {
	if m.pending == nil {
		return false
	}
	change := *m.pending
	m.pending = nil
	s := change.session
	if ev.Key() != tcell.KeyRune || ev.Rune() != 'y' {
		p.status.SetText("[::d]kept " + tview.Escape(pickerLabel(s)))
		return true
	}
	if change.archive {
		p.setArchived(s, true)
		return true
	}
	cl := p.c.client()
	p.status.SetText("[::d]deleting…")
	go func() {
		err := cl.DeleteSession(p.c.ctx, s.ID)
		p.c.mail.post(func() {
			if err != nil {
				p.status.SetText("[red]" + tview.Escape(describe(err)))
				return
			}
			p.load()
		})
	}()
	return true
}

// setArchived archives a session or brings it back, and says so once the
// listing is loaded again.
func (p *pickerScreen) setArchived(s wire.Session, archived bool) {
	cl := p.c.client()
	go func() {
		_, err := cl.SetArchived(p.c.ctx, s.ID, archived)
		p.c.mail.post(func() {
			if err != nil {
				p.status.SetText("[red]" + tview.Escape(describe(err)))
				return
			}
			p.manage.undo = nil
			note := "brought back " + pickerLabel(s)
			if archived {
				p.manage.undo = &s
				note = "archived " + pickerLabel(s) + ": u brings it back"
			}
			p.loadThen(func() { p.status.SetText(tview.Escape(note)) })
		})
	}()
}

// undoArchive brings back the session last archived.
func (p *pickerScreen) undoArchive() {
	if p.manage.undo == nil {
		p.status.SetText("[::d]nothing to undo")
		return
	}
	p.setArchived(*p.manage.undo, false)
}

// toggleArchived shows or hides the archived sessions.
func (p *pickerScreen) toggleArchived() {
	p.manage.archived = !p.manage.archived
	p.load()
}

// newSearch makes the field where / searches are typed: the listing
// follows each key; Enter keeps the filter, Esc clears it.
func (p *pickerScreen) newSearch() *tview.InputField {
	field := tview.NewInputField().SetLabel("/ ").SetFieldBackgroundColor(tcell.ColorDefault)
	field.SetChangedFunc(func(text string) {
		if text != p.manage.query {
			p.manage.query = text
			p.load()
		}
	})
	field.SetDoneFunc(func(key tcell.Key) {
		p.root.RemoveItem(field)
		p.c.app.SetFocus(p.table)
		if key == tcell.KeyEscape && p.manage.query != "" {
			p.clearSearch()
		}
	})
	return field
}

// startSearch opens the search field under the table.
func (p *pickerScreen) startSearch() {
	field := p.manage.search
	field.SetText(p.manage.query)
	p.root.RemoveItem(field)
	p.root.AddItem(field, 1, 0, true)
	p.c.app.SetFocus(field)
}

// clearSearch drops the filter and lists every session again.
func (p *pickerScreen) clearSearch() {
	p.manage.query = ""
	p.manage.search.SetText("")
	p.load()
}

// pickerLabel names a session in the picker's messages.
func pickerLabel(s wire.Session) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Title
}
