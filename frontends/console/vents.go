package console

import (
	"fmt"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// ventLimit is how many vents the screen shows.
const ventLimit = 500

// ventsScreen is the vent ledger: a list, newest first, and the selected
// vent in full, with keys to reply, dismiss and delete.
type ventsScreen struct {
	c      *Console
	root   *tview.Flex
	table  *tview.Table
	detail *tview.TextView
	reply  *tview.InputField
	status *tview.TextView
	// body holds the list and the detail; the reply field joins it while
	// the user writes.
	body *tview.Flex

	vents []wire.Vent
	// sessions maps session ids to what the user calls them.
	sessions map[string]wire.Session
	// back is the page to return to.
	back string
	// deleting is the vent a first x asked to delete.
	deleting string
	// draft is a reply that could not be sent, offered again when the
	// user replies to draftFor once more.
	draft, draftFor string
}

func newVentsScreen(c *Console) *ventsScreen {
	v := &ventsScreen{c: c, back: pagePicker}
	v.table = listTable()
	v.table.SetInputCapture(v.keys)
	v.table.SetSelectionChangedFunc(func(row, _ int) { v.deleting = ""; v.show(row) })
	v.detail = textView("").SetWordWrap(true)
	v.detail.SetBorder(true).SetBorderPadding(0, 0, 1, 1)
	v.reply = tview.NewInputField().SetLabel("reply: ").SetFieldStyle(tcell.StyleDefault.Underline(true))
	plain(v.reply.Box)
	v.reply.SetDoneFunc(v.replyDone)
	v.status = textView("")
	help := textView("[::d]r reply · d dismiss · x delete · g reload · Esc back · Ctrl-D quit")
	v.body = tview.NewFlex().
		AddItem(v.table, 0, 1, true).
		AddItem(v.detail, 0, 1, false)
	v.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(header("vents"), 1, 0, false).
		AddItem(v.body, 0, 1, true).
		AddItem(v.reply, 0, 0, false).
		AddItem(v.status, 1, 0, false).
		AddItem(help, 1, 0, false)
	return v
}

// load fetches the ledger and the sessions that filed it, archived ones
// included; keepStatus keeps the status message (what a change did).
func (v *ventsScreen) load(keepStatus bool) {
	status := v.status.GetText(false)
	if !keepStatus {
		v.setStatus("loading…", false)
	}
	cl := v.c.client()
	go func() {
		page, err := cl.Vents(v.c.ctx, ventLimit, "")
		// Archived sessions filed vents too: they are not gone.
		sessions, _, serr := cl.FindSessions(v.c.ctx, wire.SessionFilter{Archived: "all"})
		v.c.mail.post(func() {
			if err != nil {
				v.setStatus(describe(err), true)
				return
			}
			if serr == nil {
				v.sessions = make(map[string]wire.Session, len(sessions))
				for _, s := range sessions {
					v.sessions[s.ID] = s
				}
			}
			v.fill(page.Items)
			if keepStatus {
				v.status.SetText(status)
			}
		})
	}()
}

// setStatus shows a message under the ledger.
func (v *ventsScreen) setStatus(text string, failed bool) {
	if text = tview.Escape(text); failed {
		text = "[red]" + text
	}
	v.status.SetText(text)
}

// fill shows the vents, keeping the selected one selected.
func (v *ventsScreen) fill(vents []wire.Vent) {
	selected, _ := v.selected()
	v.vents = vents
	clearTable(v.table, "ID", "STATUS", "TOPIC", "TITLE")
	row := 1
	for i, x := range vents {
		v.table.SetCell(i+1, 0, tview.NewTableCell("#"+x.ID))
		v.table.SetCell(i+1, 1, tview.NewTableCell(x.Status).SetTextColor(ventColor(x.Status)))
		v.table.SetCell(i+1, 2, tview.NewTableCell(tview.Escape(x.Topic)))
		v.table.SetCell(i+1, 3, tview.NewTableCell(tview.Escape(x.Title)).SetExpansion(1).SetMaxWidth(60))
		if x.ID == selected.ID {
			row = i + 1
		}
	}
	if len(vents) == 0 {
		v.detail.SetText("[::d]No vents. Models file them with vent() when something gets in their way.")
		v.setStatus("the ledger is empty", false)
		return
	}
	open := 0
	for _, x := range vents {
		if !x.Closed() {
			open++
		}
	}
	v.setStatus(fmt.Sprintf("%s, %d open", plural(len(vents), "vent"), open), false)
	v.table.Select(row, 0)
	v.show(row)
}

// ventColor colours a vent status.
func ventColor(status string) tcell.Color {
	switch status {
	case wire.VentOpen:
		return tcell.ColorOlive
	case wire.VentAcknowledged:
		return tcell.ColorTeal
	case wire.VentResolved:
		return tcell.ColorGreen
	}
	return tcell.ColorGray
}

// selected returns the vent of the selected row.
func (v *ventsScreen) selected() (wire.Vent, bool) {
	row, _ := v.table.GetSelection()
	return rowItem(v.vents, row)
}

// show fills the detail pane with a table row's vent.
func (v *ventsScreen) show(row int) {
	if x, ok := rowItem(v.vents, row); ok {
		v.detail.SetText(ventDetail(x, v.sessions)).ScrollToBeginning()
	} else {
		v.detail.SetText("")
	}
}

// ventDetail renders a vent in full, with tview colour tags.
func ventDetail(x wire.Vent, sessions map[string]wire.Session) string {
	var b strings.Builder
	e := tview.Escape
	fmt.Fprintf(&b, "[::b]#%s %s[::-]\n[%s]%s[-] · %s", x.ID, e(x.Title), ventColor(x.Status).String(), x.Status, e(x.Topic))
	if x.CreatedAt > 0 {
		fmt.Fprintf(&b, " · filed %s", x.Created().Format(time.DateTime))
	}
	b.WriteString("\n\n")
	field := func(name, value string) {
		if strings.TrimSpace(value) != "" {
			fmt.Fprintf(&b, "[::b]%s[::-]\n%s\n\n", name, e(value))
		}
	}
	field("Message", x.Message)
	field("Suggestion", x.Suggestion)
	field("Filed by", sessionLabel(x.Session(), x.SessionName, x.SessionTitle, sessions))
	field("Workspace", x.Workspace)
	field("Reply", x.Reply)
	if x.Resolution != "" {
		by := ""
		if x.ResolvingSessionID != nil {
			by = " (by " + sessionLabel(*x.ResolvingSessionID, "", "", sessions) + ")"
		}
		field("Resolution", x.Resolution+by)
	}
	return strings.TrimRight(b.String(), "\n")
}

// sessionLabel names a session the way the user knows it: by its name,
// then by title, the one it had when it filed the vent (filed) where known,
// saying what it is called now when that differs, or that it is gone.
func sessionLabel(id, name, filed string, sessions map[string]wire.Session) string {
	if id == "" {
		return "an unknown session"
	}
	s, ok := sessions[id]
	if name == "" && ok {
		name = s.Name
	}
	title := filed
	if title == "" && ok {
		title = s.Title
	}
	var who []string
	if name != "" {
		who = append(who, name)
	}
	if title != "" {
		who = append(who, "“"+truncate(title, 60)+"”")
	}
	notes := []string{id}
	switch {
	case ok && title != "" && s.Title != title:
		notes = append(notes, "now “"+truncate(s.Title, 60)+"”")
	case !ok && sessions != nil:
		notes = append(notes, "gone")
	}
	if len(who) == 0 && len(notes) == 1 {
		return id
	}
	if len(who) == 0 {
		return id + " (" + strings.Join(notes[1:], ", ") + ")"
	}
	return strings.Join(who, " ") + " (" + strings.Join(notes, ", ") + ")"
}

// keys handles the ledger's keys.
func (v *ventsScreen) keys(ev *tcell.EventKey) *tcell.EventKey {
	if ev.Key() == tcell.KeyEscape {
		v.c.back(v.back)
		return nil
	}
	if ev.Key() != tcell.KeyRune {
		return ev
	}
	x, ok := v.selected()
	if r := ev.Rune(); r != 'x' {
		v.deleting = ""
	}
	switch ev.Rune() {
	case 'q':
		v.c.back(v.back)
	case 'g':
		v.load(false)
	case 'r':
		if ok {
			v.startReply(x)
		}
	case 'd':
		if ok {
			v.dismiss(x)
		}
	case 'x':
		if ok {
			v.delete(x)
		}
	default:
		return ev
	}
	return nil
}

// startReply opens the reply field for a vent.
func (v *ventsScreen) startReply(x wire.Vent) {
	text := x.Reply
	if v.draftFor == x.ID {
		text = v.draft
	}
	v.reply.SetLabel(fmt.Sprintf("reply to #%s: ", x.ID)).SetText(text)
	v.root.ResizeItem(v.reply, 1, 0)
	v.setStatus("Enter sends the reply · Esc cancels", false)
	v.c.app.SetFocus(v.reply)
}

// replyDone sends or abandons a reply.
func (v *ventsScreen) replyDone(key tcell.Key) {
	text := strings.TrimSpace(v.reply.GetText())
	x, ok := v.selected()
	v.root.ResizeItem(v.reply, 0, 0)
	v.c.app.SetFocus(v.table)
	if key != tcell.KeyEnter || !ok {
		v.setStatus("reply abandoned", false)
		return
	}
	if text == "" {
		v.setStatus("a reply must not be empty", true)
		return
	}
	cl := v.c.client()
	v.setStatus("sending the reply…", false)
	go func() {
		r, err := cl.ReplyVent(v.c.ctx, x.ID, text)
		v.c.mail.post(func() {
			if err != nil {
				v.draft, v.draftFor = text, x.ID
				v.setStatus(describe(err)+" (r brings the reply back)", true)
				return
			}
			if v.draftFor == x.ID {
				v.draft, v.draftFor = "", ""
			}
			if r.Queued() {
				v.setStatus(fmt.Sprintf("replied to #%s: the filing session gets it on its next turn", x.ID), false)
			} else {
				v.setStatus(fmt.Sprintf("replied to #%s: the filing session is gone, the reply is kept", x.ID), false)
			}
			v.load(true)
		})
	}()
}

// dismiss closes a vent without resolving it.
func (v *ventsScreen) dismiss(x wire.Vent) {
	v.change(func(cl *client.Client) error {
		_, err := cl.DismissVent(v.c.ctx, x.ID)
		return err
	}, "dismissed #"+x.ID)
}

// change runs a change of the ledger off the event loop, then says done
// and reloads, or shows why it failed.
func (v *ventsScreen) change(call func(cl *client.Client) error, done string) {
	cl := v.c.client()
	go func() {
		err := call(cl)
		v.c.mail.post(func() {
			if err != nil {
				v.setStatus(describe(err), true)
				return
			}
			v.setStatus(done, false)
			v.load(true)
		})
	}()
}

// delete removes a vent once x was pressed twice on it.
func (v *ventsScreen) delete(x wire.Vent) {
	if v.deleting != x.ID {
		v.deleting = x.ID
		v.setStatus(fmt.Sprintf("press x again to delete #%s for good", x.ID), false)
		return
	}
	v.deleting = ""
	v.change(func(cl *client.Client) error { return cl.DeleteVent(v.c.ctx, x.ID) }, "deleted #"+x.ID)
}
