package console

import (
	"regexp"
	"strings"

	"github.com/albedo-agent/albedo/frontends/markup"
	"github.com/gdamore/tcell/v2"
)

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
