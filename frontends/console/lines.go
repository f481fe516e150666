package console

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/uniseg"
)

// segment is a run of text in one style.
type segment struct {
	text  string
	style tcell.Style
}

// line is one row of the transcript as it is drawn: styled segments whose
// widths add up to at most the width it was laid out for.
type line []segment

// plain returns the line's text without styles.
func (l line) plain() string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.text)
	}
	return b.String()
}

// add appends text in style to the line, joining it to the last segment
// when that has the same style; empty text adds nothing.
func (l line) add(text string, style tcell.Style) line {
	switch n := len(l); {
	case text == "":
	case n > 0 && l[n-1].style == style:
		l[n-1].text += text
	default:
		l = append(l, segment{text, style})
	}
	return l
}

// splitLines splits a styled line at the newlines in its text.
func splitLines(l line) []line {
	out := []line{nil}
	for _, s := range l {
		for i, p := range strings.Split(s.text, "\n") {
			if i > 0 {
				out = append(out, nil)
			}
			out[len(out)-1] = out[len(out)-1].add(p, s.style)
		}
	}
	return out
}

// width returns how many cells text takes on a terminal.
func width(text string) int {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return uniseg.StringWidth(text)
		}
	}
	return len(text)
}

// nextCluster splits the first grapheme cluster off text and returns it,
// the rest, and its width in cells. A printable ASCII byte not followed by
// a combining byte is a cluster of its own, found without Unicode tables.
func nextCluster(text string) (cluster, rest string, cells int) {
	if c := text[0]; c >= 0x20 && c < 0x7f && (len(text) == 1 || text[1] < 0x80) {
		return text[:1], text[1:], 1
	}
	cluster, rest, boundaries, _ := uniseg.StepString(text, -1)
	return cluster, rest, boundaries >> uniseg.ShiftWidth
}

// wrap breaks text into rows of at most w cells, at spaces where it can
// and inside words where it must. Newlines always break. Each row of the
// result has trailing spaces removed; an empty text is one empty row.
func wrap(text string, w int) []string {
	var rows []string
	for _, para := range strings.Split(text, "\n") {
		for _, row := range wrapLine(line{{para, tcell.StyleDefault}}, w) {
			rows = append(rows, row.plain())
		}
	}
	return rows
}

// truncate shortens text to at most w cells, ending it with … when cut.
func truncate(text string, w int) string {
	if width(text) <= w {
		return text
	}
	if w <= 1 {
		return "…"
	}
	var b strings.Builder
	cells := 0
	for len(text) > 0 {
		var cluster string
		var cw int
		cluster, text, cw = nextCluster(text)
		if cells+cw > w-1 {
			break
		}
		b.WriteString(cluster)
		cells += cw
	}
	b.WriteString("…")
	return b.String()
}

// wrapLine breaks a styled line (no newlines in it) into rows of at most w
// cells, at spaces where it can and inside words where it must, keeping
// each run's style. Spaces at a break go; an empty line is one empty row.
func wrapLine(l line, w int) []line {
	w = max(w, 1)
	total := 0
	for _, s := range l {
		total += width(s.text)
	}
	if total <= w {
		return []line{trimLine(l)}
	}
	type cell struct {
		text  string
		style tcell.Style
		cells int
	}
	var cells []cell
	for _, s := range l {
		for rest := s.text; len(rest) > 0; {
			var c cell
			c.text, rest, c.cells = nextCluster(rest)
			c.style = s.style
			cells = append(cells, c)
		}
	}
	var rows []line
	emit := func(part []cell) {
		var row line
		for _, c := range part {
			row = row.add(c.text, c.style)
		}
		rows = append(rows, trimLine(row))
	}
	start, used, lastSpace := 0, 0, -1
	for i := 0; i < len(cells); i++ {
		c := cells[i]
		if used+c.cells > w && used > 0 {
			switch {
			case c.text == " ":
				emit(cells[start:i])
				start, used, lastSpace = i+1, 0, -1
				continue
			case lastSpace > start:
				emit(cells[start:lastSpace])
				start, lastSpace = lastSpace+1, -1
				used = 0
				for _, k := range cells[start:i] {
					used += k.cells
				}
			default:
				emit(cells[start:i])
				start, used, lastSpace = i, 0, -1
			}
		}
		used += c.cells
		if c.text == " " {
			lastSpace = i
		}
	}
	if start < len(cells) {
		emit(cells[start:])
		if n := len(rows); n > 1 && len(rows[n-1]) == 0 {
			rows = rows[:n-1] // only the spaces after a break were left
		}
	}
	return rows
}

// wrapLines wraps each of lines into rows of at most w cells.
func wrapLines(lines []line, w int) []line {
	var rows []line
	for _, l := range lines {
		rows = append(rows, wrapLine(l, w)...)
	}
	return rows
}

// trimLine drops the spaces at the end of a line.
func trimLine(l line) line {
	for len(l) > 0 {
		last := &l[len(l)-1]
		last.text = strings.TrimRight(last.text, " ")
		if last.text != "" {
			break
		}
		l = l[:len(l)-1]
	}
	return l
}
