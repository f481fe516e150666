package console

import "github.com/gdamore/tcell/v2"

// theme holds the styles of the console.
type theme struct {
	text, dim, bold   tcell.Style
	user, userText    tcell.Style
	queued            tcell.Style
	assistant         tcell.Style
	thinking          tcell.Style
	tool, code, frame tcell.Style
	ok, warn, fail    tcell.Style
}

// defaultTheme returns the console's styles: terminal colours, so that
// light and dark terminals both read well.
func defaultTheme() *theme {
	base := tcell.StyleDefault
	return &theme{
		text:      base,
		dim:       base.Dim(true),
		bold:      base.Bold(true),
		user:      base.Foreground(tcell.ColorBlue).Bold(true),
		userText:  base.Bold(true),
		queued:    base.Foreground(tcell.ColorOlive),
		assistant: base.Foreground(tcell.ColorGreen).Bold(true),
		thinking:  base.Dim(true).Italic(true),
		tool:      base.Foreground(tcell.ColorTeal).Bold(true),
		code:      base.Foreground(tcell.ColorTeal),
		frame:     base.Foreground(tcell.ColorGray),
		ok:        base.Foreground(tcell.ColorGreen),
		warn:      base.Foreground(tcell.ColorOlive),
		fail:      base.Foreground(tcell.ColorRed),
	}
}
