package console

import (
	"github.com/albedo-agent/albedo/frontends/markup"
	"github.com/gdamore/tcell/v2"
	"github.com/yuin/goldmark/parser"
)

// theme holds the styles of the console, and the markdown parser and
// highlighter whose output it styles.
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

	md     parser.Parser
	tokens *markup.Highlighter
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
	th.md, th.tokens = markup.NewParser(), markup.NewHighlighter()
	return th
}
