package console

import (
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// pickerManage is the picker's state for deleting, archiving and
// searching sessions.
type pickerManage struct {
	// pending, when set, is a deletion waiting for y.
	pending *client.Session
	// query filters the listing; search is where it is typed.
	query  string
	search *tview.InputField
}

// selected returns the session of the selected row.
func (p *pickerScreen) selected() (client.Session, bool) {
	row, _ := p.table.GetSelection()
	if row < 1 || row > len(p.sessions) {
		return client.Session{}, false
	}
	return p.sessions[row-1], true
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
	p.manage.pending = &s
	p.status.SetText("[yellow]delete " + tview.Escape(pickerLabel(s)) + " and its whole transcript? y deletes, any other key keeps it")
}

// confirming takes the key that answers a pending deletion, and reports
// whether there was one.
func (m *pickerManage) confirming(p *pickerScreen, ev *tcell.EventKey) bool {
	if m.pending == nil {
		return false
	}
	s := *m.pending
	m.pending = nil
	if ev.Key() != tcell.KeyRune || ev.Rune() != 'y' {
		p.status.SetText("[::d]kept " + tview.Escape(pickerLabel(s)))
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

// archive archives the selected session: the listing leaves it out.
func (p *pickerScreen) archive() {
	s, ok := p.selected()
	if !ok {
		return
	}
	cl := p.c.client()
	go func() {
		_, err := cl.SetArchived(p.c.ctx, s.ID, true)
		p.c.mail.post(func() {
			if err != nil {
				p.status.SetText("[red]" + tview.Escape(describe(err)))
				return
			}
			p.load()
		})
	}()
}

// newSearch makes the field where / searches are typed.
func (p *pickerScreen) newSearch() *tview.InputField {
	field := tview.NewInputField().SetLabel("/ ").SetFieldBackgroundColor(tcell.ColorDefault)
	field.SetDoneFunc(func(key tcell.Key) {
		if key == tcell.KeyEnter {
			p.manage.query = field.GetText()
		}
		p.root.RemoveItem(field)
		p.c.app.SetFocus(p.table)
		p.load()
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

// pickerLabel names a session in the picker's messages.
func pickerLabel(s client.Session) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Title
}
