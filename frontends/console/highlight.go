package console

import (
	"regexp"
	"strings"

	"github.com/albedo-agent/albedo/frontends/markup"
	"github.com/gdamore/tcell/v2"
)

// highlight splits code into rows of styled segments, coloured by the
// classes markup's highlighter gives its tokens when lang is known, and in
// base style otherwise. Tabs and control characters are made safe to draw.
func (th *theme) highlight(code, lang string, base tcell.Style) []line {
	var l line
	for _, tok := range th.tokens.Tokens(markup.Clean(code), lang) {
		l = l.add(tok.Text, th.syntax(tok.Class, base))
	}
	return splitLines(l)
}

// syntax returns the style of a class of code, on top of base.
func (th *theme) syntax(c markup.Class, base tcell.Style) tcell.Style {
	switch c {
	case markup.Comment:
		return th.synComment
	case markup.Constant:
		return th.synConstant
	case markup.Keyword:
		return th.synKeyword
	case markup.String:
		return th.synString
	case markup.Number:
		return th.synNumber
	case markup.Function:
		return th.synFunction
	case markup.Builtin:
		return th.synBuiltin
	case markup.Operator:
		return th.synOperator
	}
	return base
}

// tracebackFrame matches the line of a Python traceback that names where a
// frame stood: `  File "x.py", line 3, in f`. The indented line after it is
// that frame's source.
var tracebackFrame = regexp.MustCompile(`^\s*File "[^"]*", line \d+`)

// outputLines lays out what a cell printed or raised, in base style, with
// the code in it highlighted: the source lines of a Python traceback are
// drawn as Python, the frame lines that name them dimmed.
func (th *theme) outputLines(text string, base tcell.Style) []line {
	rows := strings.Split(markup.Clean(text), "\n")
	out := make([]line, len(rows))
	source := false // the row follows a frame line
	for i, row := range rows {
		trimmed := strings.TrimLeft(row, " ")
		switch {
		case strings.HasPrefix(trimmed, `File "`) && tracebackFrame.MatchString(row):
			out[i], source = line{{row, th.dim}}, true
			continue
		case source && trimmed != "" && len(trimmed) < len(row):
			indent := row[:len(row)-len(trimmed)]
			code := th.highlight(trimmed, "python", th.code)
			out[i] = append(line{{indent, base}}, code[0]...)
		default:
			out[i] = line{{row, base}}
		}
		source = false
	}
	return out
}
