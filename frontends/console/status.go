package console

import (
	"fmt"
	"strings"

	"github.com/rivo/tview"
)

// statusLine is what the session screen's status line says.
type statusLine struct {
	Provider, Model string
	Running         bool
	Usage           Usage
	// Conn says how the connection to the daemon is, "" when fine.
	Conn       string
	ConnFailed bool
	// Note is a passing message, such as "queued".
	Note       string
	NoteFailed bool
	// Queued counts messages waiting for the next model request.
	Queued int
	// Scrolled is true when the view does not follow the end.
	Scrolled bool
	Detail   bool
}

// statusText renders a status line with tview colour tags.
func statusText(s statusLine) string {
	var parts []string
	model := s.Model
	if s.Provider != "" {
		model = s.Provider + " · " + model
	}
	if model != "" {
		parts = append(parts, "[teal]"+tview.Escape(model)+"[-]")
	}
	if s.Running {
		parts = append(parts, "[yellow::b]● running[-::-]")
	} else {
		parts = append(parts, "[green]○ idle[-]")
	}
	for _, m := range []struct {
		text   string
		failed bool
	}{{s.Conn, s.ConnFailed}, {s.Note, s.NoteFailed}} {
		if m.text == "" {
			continue
		}
		color := "[::b]"
		if m.failed {
			color = "[red::b]"
		}
		parts = append(parts, color+tview.Escape(m.text)+"[-::-]")
	}
	if s.Queued > 0 {
		parts = append(parts, fmt.Sprintf("[yellow]%d queued[-]", s.Queued))
	}
	if s.Usage.Requests > 0 {
		parts = append(parts, fmt.Sprintf("[::d]tokens: %s context · %s out[::-]", tokens(s.Usage.Context), tokens(s.Usage.Output)))
	}
	if s.Detail {
		parts = append(parts, "[::d]details shown[::-]")
	}
	if s.Scrolled {
		parts = append(parts, "[yellow]scrolled up[-]")
	}
	return " " + strings.Join(parts, " [::d]│[::-] ")
}
