package console

import "github.com/gdamore/tcell/v2"

// theme holds the styles of the console, and the markdown renderer and
// highlighter that use them.
type theme struct {
	text, dim, bold   tcell.Style
	user, userText    tcell.Style
	queued            tcell.Style
	assistant         tcell.Style
	thinking          tcell.Style
	tool, code, frame tcell.Style
	ok, warn, fail    tcell.Style
	// Markdown.
	heading, link, quote tcell.Style
	// Syntax highlighting.
	synKeyword, synConstant, synString, synNumber    tcell.Style
	synComment, synFunction, synBuiltin, synOperator tcell.Style

	md *markdown
	hl *highlighter
}

// defaultTheme returns the console's styles: terminal colours, so that
// light and dark terminals both read well.
func defaultTheme() *theme {
	base := tcell.StyleDefault
	th := &theme{
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

		heading: base.Foreground(tcell.ColorPurple).Bold(true),
		link:    base.Foreground(tcell.ColorBlue).Underline(true),
		quote:   base.Dim(true).Italic(true),

		synKeyword:  base.Foreground(tcell.ColorPurple).Bold(true),
		synConstant: base.Foreground(tcell.ColorPurple),
		synString:   base.Foreground(tcell.ColorGreen),
		synNumber:   base.Foreground(tcell.ColorOlive),
		synComment:  base.Foreground(tcell.ColorGray).Italic(true),
		synFunction: base.Foreground(tcell.ColorBlue).Bold(true),
		synBuiltin:  base.Foreground(tcell.ColorBlue),
		synOperator: base.Foreground(tcell.ColorMaroon),
	}
	th.md, th.hl = newMarkdown(), newHighlighter()
	return th
}
