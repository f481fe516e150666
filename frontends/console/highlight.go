package console

import (
	"strings"

	"github.com/albedo-agent/albedo/frontends/markup"
	"github.com/gdamore/tcell/v2"
)

// highlighter colours code by the classes markup's highlighter gives its
// tokens.
type highlighter struct {
	tokens *markup.Highlighter
}

// newHighlighter returns a highlighter; its rules compile on first use.
func newHighlighter() *highlighter {
	return &highlighter{tokens: markup.NewHighlighter()}
}

// lines splits code into rows of styled segments, coloured when lang is
// known and in base style otherwise. Tabs and control characters are made
// safe to draw.
func (h *highlighter) lines(code, lang string, th *theme, base tcell.Style) []line {
	code = markup.Clean(code)
	if !h.tokens.Known(lang) {
		var out []line
		for _, row := range strings.Split(code, "\n") {
			out = append(out, line{{row, base}})
		}
		return out
	}
	out := []line{nil}
	for _, tok := range h.tokens.Tokens(code, lang) {
		style := th.syntax(tok.Class, base)
		for i, part := range strings.Split(tok.Text, "\n") {
			if i > 0 {
				out = append(out, nil)
			}
			if part == "" {
				continue
			}
			cur := &out[len(out)-1]
			if n := len(*cur); n > 0 && (*cur)[n-1].style == style {
				(*cur)[n-1].text += part
			} else {
				*cur = append(*cur, segment{part, style})
			}
		}
	}
	return out
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
