package console

import (
	"fmt"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/rivo/tview"
)

// spinner returns frame i of the activity indicator; each frame shows
// for frameTime.
func spinner(i int) string {
	const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" // three bytes each
	i %= len(frames) / 3
	return frames[3*i : 3*i+3]
}

// frameTime is how long one frame of the indicator shows.
const frameTime = 100 * time.Millisecond

// statusLine is what the session screen's status line says.
type statusLine struct {
	Provider, Model string
	Running         bool
	// Turn is how long the running turn has run; Cell how long its
	// running cell has, when one runs (InCell).
	Turn, Cell time.Duration
	InCell     bool
	Usage      Usage
	// Retry is the provider's retry under way, "" when none is.
	Retry string
	// Conn says how the connection to the daemon is, "" when fine.
	Conn       string
	ConnFailed bool
	// Note is a passing message, such as "queued".
	Note       string
	NoteFailed bool
	// Prompt offers what the keys do now; it is never shortened.
	Prompt string
	// Queued counts messages waiting for the next model request.
	Queued int
	// Jobs counts the background jobs the session's kernel runs.
	Jobs int
	// Scrolled is true when the view does not follow the end.
	Scrolled bool
	Detail   bool
	// Sandbox says what the session's kernel runs under, "" when unknown;
	// SandboxShort is its shorter form for a line that does not fit.
	Sandbox, SandboxShort string
}

// sandboxText is the status line's word on a sandbox glance, short so it
// leaves room for the rest: the mode ("sandbox: workspace-write"), then
// "offline" when the network is refused and how many protections the
// machine does not enforce; "sandbox off" when off. short is what a line
// too long for the terminal shows instead: the default mode goes unnamed.
func sandboxText(g wire.Glance) (text, short string) {
	mode, _ := g["mode"].(string)
	switch mode {
	case "":
		return "", ""
	case "off":
		return "sandbox off", ""
	}
	var notes []string
	if network, ok := g["network"].(bool); ok && !network {
		notes = append(notes, "offline")
	}
	if missing, _ := g["not_enforced"].([]any); len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("%d not enforced", len(missing)))
	}
	text = "sandbox: " + strings.Join(append([]string{mode}, notes...), ", ")
	if mode != "workspace-write" {
		return text, ""
	}
	if len(notes) == 0 {
		return text, "sandbox"
	}
	return text, "sandbox: " + strings.Join(notes, ", ")
}

// statusPart is one part of the status line: its text, the colour tags
// around it, and whether it may be shortened to fit; short, when set, is
// what it says in a line that does not fit, before anything is cut.
type statusPart struct {
	text, open, close, short string
	squeeze                  bool
}

// minSqueezed is the fewest cells a shortened part keeps.
const minSqueezed = 24

// statusText renders a status line with tview colour tags, fitting it in
// w cells (w <= 0: any width) by shortening its messages and, when that is
// not enough, going on to more rows. It returns the text and its rows.
func statusText(s statusLine, w int) (string, int) {
	var parts []statusPart
	add := func(open, text, close string, squeeze bool) {
		parts = append(parts, statusPart{text: text, open: open, close: close, squeeze: squeeze})
	}
	model := s.Model
	if s.Provider != "" {
		model = s.Provider + " · " + model
	}
	if model != "" {
		add("[teal]", model, "[-]", true)
	}
	if s.Running {
		run := fmt.Sprintf("%s running %s", spinner(int(s.Turn/frameTime)), elapsed(s.Turn))
		if s.InCell {
			run += " · cell " + elapsed(s.Cell)
		}
		add("[yellow::b]", run, "[-::-]", false)
	} else {
		add("[green]", "○ idle", "[-]", false)
	}
	if s.Jobs > 0 {
		add("[yellow]", "⚙ "+plural(s.Jobs, "job")+" running", "[-]", false)
	}
	if s.Retry != "" {
		add("[olive]", s.Retry, "[-]", true)
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
		add(color, m.text, "[-::-]", true)
	}
	if s.Prompt != "" {
		add("[yellow::b]", s.Prompt, "[-::-]", false)
	}
	if s.Queued > 0 {
		add("[yellow]", fmt.Sprintf("%d queued", s.Queued), "[-]", false)
	}
	if u := s.Usage; u.Requests > 0 {
		ctx := "ctx " + roundTokens(u.Context)
		if u.Window > 0 {
			ctx = fmt.Sprintf("ctx %.0f%% · %s/%s", u.Percent, roundTokens(u.Context), roundTokens(u.Window))
		}
		add("[::d]", fmt.Sprintf("%s · %s in · %s out", ctx, tokens(u.Input), tokens(u.Output)), "[::-]", false)
	}
	if s.Sandbox != "" {
		color := "[::d]"
		if strings.Contains(s.Sandbox, "not enforced") || s.Sandbox == "sandbox off" {
			color = "[yellow]"
		}
		add(color, s.Sandbox, "[-::-]", true)
		parts[len(parts)-1].short = s.SandboxShort
	}
	if s.Detail {
		add("[::d]", "details shown", "[::-]", false)
	}
	if s.Scrolled {
		add("[yellow]", "scrolled up", "[-]", false)
	}
	if w > 0 {
		fitParts(parts, w-1)
	}
	var b strings.Builder
	rows, used := 1, 0
	for i, p := range parts {
		n := width(p.text)
		switch {
		case i == 0:
			b.WriteString(" ")
			used = 1
		case w > 0 && used+3+n > w:
			b.WriteString("\n ")
			rows, used = rows+1, 1
		default:
			b.WriteString(" [::d]│[::-] ")
			used += 3
		}
		b.WriteString(p.open + tview.Escape(p.text) + p.close)
		used += n
	}
	return b.String(), rows
}

// fitParts shortens the longest parts that may be shortened until the
// parts, joined by " │ ", take at most w cells.
func fitParts(parts []statusPart, w int) {
	total := 3 * (len(parts) - 1)
	for _, p := range parts {
		total += width(p.text)
	}
	for i, p := range parts {
		if total > w && p.short != "" {
			total += width(p.short) - width(p.text)
			parts[i].text = p.short
		}
	}
	for {
		total := 3 * (len(parts) - 1)
		longest := -1
		for i, p := range parts {
			n := width(p.text)
			total += n
			if p.squeeze && n > minSqueezed && (longest < 0 || n > width(parts[longest].text)) {
				longest = i
			}
		}
		if total <= w || longest < 0 {
			return
		}
		n := width(parts[longest].text)
		parts[longest].text = truncate(parts[longest].text, max(minSqueezed, n-(total-w)))
	}
}

// elapsed formats a duration for the status line: 7s, 1m05s, 2h03m.
func elapsed(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// roundTokens shows a token count in whole thousands ("84k") from 1000
// on, and in millions to one decimal from a million on.
func roundTokens(n int64) string {
	switch {
	case n < 1000:
		return itoa(n)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}
