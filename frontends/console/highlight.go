package console

import (
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
