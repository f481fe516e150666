package console

import (
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Provider is a configured model provider as the console shows it: never
// its key.
type Provider struct {
	Name, BaseURL, Protocol, Model string
	// Active marks the provider new sessions use.
	Active bool
}

// Login is a model provider as the login form fills it in.
type Login struct {
	Name, BaseURL, Protocol, Model string
	// APIKey is empty for a provider that needs none, or to keep the key
	// already saved for Name.
	APIKey string
}

// Defaults the login form offers.
const (
	defaultProviderName = "openai"
	defaultBaseURL      = "https://api.openai.com/v1"
	defaultModel        = "gpt-5"
)

// protocols are the choices of the form's protocol field.
func protocols() []string { return []string{"responses", "chat_completions"} }

// loginScreen is the form that adds a model provider: the console opens it
// on first run, when no provider is configured, and on /login.
type loginScreen struct {
	c     *Console
	root  *tview.Flex
	form  *tview.Form
	intro *tview.TextView
	fail  *tview.TextView
	// done runs once the provider is saved; cancel when the form is left.
	done   func(Login)
	cancel func()
}

func newLoginScreen(c *Console) *loginScreen {
	l := &loginScreen{c: c}
	l.intro = textView("")
	l.fail = textView("")
	l.form = tview.NewForm()
	plain(l.form.Box)
	l.form.SetFieldBackgroundColor(tcell.ColorDefault).SetFieldTextColor(tcell.ColorDefault).SetLabelColor(tcell.ColorTeal)
	l.form.SetButtonBackgroundColor(tcell.ColorNavy).SetButtonTextColor(tcell.ColorWhite)
	l.form.SetFieldStyle(tcell.StyleDefault.Underline(true))
	l.form.AddInputField("Name", defaultProviderName, 40, nil, nil).
		AddInputField("Base URL", defaultBaseURL, 60, nil, nil).
		AddDropDown("Protocol", protocols(), 0, nil).
		AddInputField("Model", defaultModel, 40, nil, nil)
	l.addKeyField()
	l.form.AddButton("Save", l.save).
		AddButton("Cancel", func() { l.leave() })
	l.form.SetCancelFunc(l.leave)
	help := textView("[::d]Tab/Shift-Tab or Enter move · Ctrl-U clears a field · Save writes config.json · Esc cancels")
	l.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(header("add a model provider"), 1, 0, false).
		AddItem(l.intro, 3, 0, false).
		AddItem(l.form, 13, 0, true).
		AddItem(l.fail, 0, 1, false).
		AddItem(help, 1, 0, false)
	return l
}

// show opens the form with intro above it, filled from p where p says.
func (l *loginScreen) show(intro string, p Provider, done func(Login), cancel func()) {
	l.done, l.cancel = done, cancel
	l.intro.SetText(intro)
	l.fail.SetText("")
	set := func(label, value, fallback string) {
		if value == "" {
			value = fallback
		}
		l.form.GetFormItemByLabel(label).(*tview.InputField).SetText(value)
	}
	set("Name", p.Name, defaultProviderName)
	set("Base URL", p.BaseURL, defaultBaseURL)
	set("Model", p.Model, defaultModel)
	// A fresh field rather than SetText(""): tview cannot empty a masked
	// field (it keeps the tail of what was typed), and Save would store it.
	l.form.RemoveFormItem(l.form.GetFormItemIndex(keyLabel))
	l.addKeyField()
	proto := max(0, slices.Index(protocols(), p.Protocol)) // the first when unknown
	l.form.GetFormItemByLabel("Protocol").(*tview.DropDown).SetCurrentOption(proto)
	l.form.SetFocus(0)
	l.c.pages.SwitchToPage(pageLogin)
	l.c.app.SetFocus(l.form)
}

// keyLabel is the label of the form's API key field.
const keyLabel = "API key"

// addKeyField appends an empty, masked API key field to the form: the last
// of its fields.
func (l *loginScreen) addKeyField() {
	l.form.AddPasswordField(keyLabel, "", 60, '•', nil)
}

// value returns what the form holds.
func (l *loginScreen) value() Login {
	text := func(label string) string {
		return strings.TrimSpace(l.form.GetFormItemByLabel(label).(*tview.InputField).GetText())
	}
	_, proto := l.form.GetFormItemByLabel("Protocol").(*tview.DropDown).GetCurrentOption()
	return Login{Name: text("Name"), BaseURL: text("Base URL"), Protocol: proto, Model: text("Model"), APIKey: text(keyLabel)}
}

// save writes the provider through Options.SaveProvider.
func (l *loginScreen) save() {
	p := l.value()
	l.fail.SetText("[::d]saving…")
	go func() {
		err := l.c.opts.SaveProvider(l.c.ctx, p)
		l.c.mail.post(func() {
			if err != nil {
				l.fail.SetText("[red]" + tview.Escape(describe(err)))
				return
			}
			l.fail.SetText("")
			l.done(p)
		})
	}()
}

// leave closes the form without saving.
func (l *loginScreen) leave() {
	if l.cancel != nil {
		l.cancel()
	}
}

// onboardIntro is what the form says on first run.
const onboardIntro = "[::b]Welcome to albedo.[::-] No model provider is configured yet: tell albedo which one to use. " +
	"The key is saved in config.json in albedo's home; leave it empty for a local server that needs none."

// loginIntro is what the form says on /login.
const loginIntro = "Add a model provider, or change one: the same name replaces it (an empty key keeps the saved one). " +
	"New sessions use it."

// onboard opens the login form because no provider is configured, then
// makes a session in workspace and opens it. Leaving the form quits.
func (c *Console) onboard(workspace string) {
	c.login.show(onboardIntro, Provider{}, func(Login) {
		go func() {
			s, err := c.client().CreateSession(c.ctx, workspace, "")
			c.mail.post(func() {
				if err != nil {
					c.login.fail.SetText("[red]" + tview.Escape(describe(err)))
					return
				}
				c.session.open(s.ID)
				c.session.greeting = "provider saved in config.json; this session uses it (/login changes it, /model picks another)"
			})
		}()
	}, c.quit)
}

// canLogin reports whether the console can save providers.
func (c *Console) canLogin() bool { return c.opts.SaveProvider != nil }

// noProvider reports whether err says that no provider is configured.
func noProvider(err error) bool { return wire.ErrorCode(err) == wire.CodeNoProvider }

// login opens the form from the session screen (/login), filled with the
// session's provider as configured, and comes back to it.
func (s *sessionScreen) login() {
	if !s.c.canLogin() {
		s.t.Notice("this console cannot save providers: run albedo login in a shell", true)
		return
	}
	gen, name := s.gen, s.info.Provider
	back := func() { s.c.showSession() }
	go func() {
		prefill := Provider{Name: name, Model: s.info.Model, Protocol: s.info.Protocol}
		if s.c.opts.Providers != nil {
			if list, err := s.c.opts.Providers(s.c.ctx); err == nil {
				for _, p := range list {
					if p.Name == name {
						prefill = p
					}
				}
			}
		}
		s.c.mail.post(func() {
			s.c.login.show(loginIntro, prefill, func(p Login) {
				back()
				s.post(gen, func() {
					s.t.Notice("saved provider "+p.Name+" ("+p.Protocol+" · "+p.Model+") and made it active: new sessions use it; /model "+p.Name+" "+p.Model+" moves this session to it", false)
				})
			}, back)
		})
	}()
}
