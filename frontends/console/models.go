package console

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// modelsScreen is /model's picker: the session's provider and model, and
// the configured providers to switch to, each with its model.
type modelsScreen struct {
	c    *Console
	root *tview.Flex
	head *tview.TextView
	list *tview.List
	// providers are the list's rows.
	providers []Provider
}

func newModelsScreen(c *Console) *modelsScreen {
	m := &modelsScreen{c: c}
	header := tview.NewTextView().SetDynamicColors(true).SetText("[white::b] albedo [-::-][white] choose a model")
	header.SetBackgroundColor(tcell.ColorNavy)
	m.head = tview.NewTextView().SetDynamicColors(true).SetWrap(true)
	plain(m.head.Box)
	m.list = tview.NewList().ShowSecondaryText(false).SetHighlightFullLine(true).
		SetSelectedStyle(tcell.StyleDefault.Reverse(true)).SetMainTextStyle(tcell.StyleDefault)
	plain(m.list.Box)
	m.list.SetDoneFunc(func() { c.showSession() })
	help := tview.NewTextView().SetDynamicColors(true).SetText("[::d]Up/Down choose · Enter switch this session (new sessions follow) · Esc back · /model PROVIDER MODEL for another model")
	plain(help.Box)
	m.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(header, 1, 0, false).
		AddItem(m.head, 3, 0, false).
		AddItem(m.list, 0, 1, true).
		AddItem(help, 1, 0, false)
	return m
}

// show lists providers for session s, whose current choice comes first
// in the header, and switches on Enter.
func (m *modelsScreen) show(s *sessionScreen, providers []Provider) {
	m.providers = providers
	proto := ""
	if s.info.Protocol != "" {
		proto = " (" + s.info.Protocol + ")"
	}
	m.head.SetText(fmt.Sprintf("This session uses [teal]%s · %s[-]%s. Pick a provider to switch it to that provider's model; new sessions use the choice too.",
		tview.Escape(s.info.Provider), tview.Escape(s.info.Model), tview.Escape(proto)))
	m.list.Clear()
	current := 0
	for i, p := range providers {
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
	m.c.pages.SwitchToPage(pageModels)
	m.c.app.SetFocus(m.list)
}
