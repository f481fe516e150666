package console

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// modelsScreen is /model's picker: the session's provider and model, and
// the configured providers to switch to, each with its model; → lists
// the models a provider serves, to pick another.
type modelsScreen struct {
	c    *Console
	root *tview.Flex
	head *tview.TextView
	list *tview.List
	help *tview.TextView
	// session is the screen the picker switches.
	session *sessionScreen
	// providers are the list's rows; served, when set, is the provider
	// whose models the list shows instead.
	providers []Provider
	served    *Provider
	// loads counts model listings asked for: only the last is shown.
	loads int
}

func newModelsScreen(c *Console) *modelsScreen {
	m := &modelsScreen{c: c}
	m.head = textView("")
	m.list = tview.NewList().ShowSecondaryText(false).SetHighlightFullLine(true).
		SetSelectedStyle(tcell.StyleDefault.Reverse(true)).SetMainTextStyle(tcell.StyleDefault)
	plain(m.list.Box)
	m.list.SetInputCapture(m.keys)
	m.help = textView("")
	m.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(header("choose a model"), 1, 0, false).
		AddItem(m.head, 3, 0, false).
		AddItem(m.list, 0, 1, true).
		AddItem(m.help, 2, 0, false)
	return m
}

// keys handles the picker's keys: Esc goes back (to the providers from a
// model list), → and Tab list the highlighted provider's models.
func (m *modelsScreen) keys(ev *tcell.EventKey) *tcell.EventKey {
	switch ev.Key() {
	case tcell.KeyEscape, tcell.KeyLeft:
		if m.served != nil {
			m.showProviders()
		} else if ev.Key() == tcell.KeyEscape {
			m.c.showSession()
		}
		return nil
	case tcell.KeyRight, tcell.KeyTab:
		if m.served == nil && m.c.opts.Models != nil && len(m.providers) > 0 {
			m.listModels(m.providers[m.list.GetCurrentItem()])
		}
		return nil
	}
	return ev
}

// show lists providers for session s, whose current choice comes first
// in the header, and switches on Enter.
func (m *modelsScreen) show(s *sessionScreen, providers []Provider) {
	m.session, m.providers = s, providers
	m.showProviders()
	m.c.pages.SwitchToPage(pageModels)
	m.c.app.SetFocus(m.list)
}

// showProviders lists the configured providers.
func (m *modelsScreen) showProviders() {
	s := m.session
	m.served = nil
	m.loads++
	proto := ""
	if s.info.Protocol != "" {
		proto = " (" + s.info.Protocol + ")"
	}
	m.head.SetText(fmt.Sprintf("This session uses [teal]%s · %s[-]%s. Pick a provider to switch it to that provider's model; new sessions use the choice too.",
		tview.Escape(s.info.Provider), tview.Escape(s.info.Model), tview.Escape(proto)))
	help := "[::d]Up/Down choose · Enter switch this session (new sessions follow) · "
	if m.c.opts.Models != nil {
		help += "→ list the provider's models · "
	}
	m.help.SetText(help + "Esc back · /model PROVIDER MODEL for another model")
	m.list.Clear()
	current := 0
	for i, p := range m.providers {
		mark := "  "
		if p.Name == s.info.Provider {
			mark, current = "● ", i
		}
		active := "              "
		if p.Active {
			active = "(new sessions)"
		}
		m.list.AddItem(fmt.Sprintf("%s%-16s %-28s %-16s [::d]%s %s[::-]", mark, tview.Escape(p.Name), tview.Escape(p.Model), p.Protocol, active, tview.Escape(p.BaseURL)), "", 0, nil)
	}
	m.list.SetCurrentItem(current)
	m.list.SetSelectedFunc(func(i int, _, _ string, _ rune) {
		p := m.providers[i]
		m.c.showSession()
		s.switchModel(p.Name, p.Model)
	})
}

// listModels asks the provider for the models it serves and lists them.
func (m *modelsScreen) listModels(p Provider) {
	m.served = &p
	m.loads++
	n := m.loads
	m.head.SetText(fmt.Sprintf("Asking [teal]%s[-] for its models (GET %s/models)…", tview.Escape(p.Name), tview.Escape(strings.TrimRight(p.BaseURL, "/"))))
	m.help.SetText("[::d]Esc or ← back to the providers")
	m.list.Clear()
	go func() {
		models, err := m.c.opts.Models(m.c.ctx, p.Name)
		m.c.mail.post(func() {
			if n != m.loads {
				return // the user went elsewhere meanwhile
			}
			m.fillModels(p, models, err)
		})
	}()
}

// fillModels shows the models provider p serves, or why they could not
// be listed.
func (m *modelsScreen) fillModels(p Provider, models []string, err error) {
	s := m.session
	switch {
	case err != nil:
		m.head.SetText(fmt.Sprintf("[red]%s did not list its models: %s[-]", tview.Escape(p.Name), tview.Escape(describe(err))))
		return
	case len(models) == 0:
		m.head.SetText(tview.Escape(p.Name) + " lists no models: /model " + tview.Escape(p.Name) + " MODEL names one")
		return
	}
	m.head.SetText(fmt.Sprintf("[teal]%s[-] serves %s. Enter switches this session to the one chosen; new sessions use it too.",
		tview.Escape(p.Name), plural(len(models), "model")))
	m.help.SetText("[::d]Up/Down choose · Enter switch this session (new sessions follow) · Esc or ← back to the providers")
	current := 0
	for i, name := range models {
		mark := "  "
		switch {
		case p.Name == s.info.Provider && name == s.info.Model:
			mark, current = "● ", i
		case name == p.Model && p.Name != s.info.Provider:
			current = i
		}
		label := mark + tview.Escape(name)
		if name == p.Model {
			label += " [::d](configured)[::-]"
		}
		m.list.AddItem(label, "", 0, nil)
	}
	m.list.SetCurrentItem(current)
	m.list.SetSelectedFunc(func(i int, _, _ string, _ rune) {
		m.c.showSession()
		s.switchModel(p.Name, models[i])
	})
}
