package console

import (
	"cmp"
	"strings"

	"github.com/rivo/tview"
)

// keyHint is one key of a screen's key bar: "Ctrl-T details", the key
// first, in a long and a short form ("^T details").
type keyHint struct{ long, short string }

// keyBarRows bounds the key bar: past it, the bar is cut.
const keyBarRows = 2

// keyBar lays a screen's keys out in w cells (w <= 0: any width), losing
// none: the long forms joined by " · " when they fit on one row, else the
// short forms two spaces apart, on a second row when one is not enough.
// Rows carry tview colour tags: the key plain, what it does dimmed.
func keyBar(hints []keyHint, w int) []string {
	long := make([]string, len(hints))
	for i, h := range hints {
		long[i] = h.long
	}
	if w <= 0 || 1+width(strings.Join(long, " · ")) <= w {
		return []string{" " + styleHints(long, " · ")}
	}
	var rows [][]string
	used := 0
	for _, h := range hints {
		s := cmp.Or(h.short, h.long)
		if n := len(rows); n == 0 || used+2+width(s) > w {
			rows = append(rows, []string{s})
			used = 1 + width(s)
			continue
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], s)
		used += 2 + width(s)
	}
	out := make([]string, 0, keyBarRows)
	for _, r := range rows[:min(len(rows), keyBarRows)] {
		out = append(out, " "+styleHints(r, "  "))
	}
	return out
}

// styleHints joins hints by sep, each with its key plain and the rest
// dimmed.
func styleHints(hints []string, sep string) string {
	var b strings.Builder
	for i, h := range hints {
		if i > 0 {
			b.WriteString("[::d]" + sep + "[::-]")
		}
		key, what, _ := strings.Cut(h, " ")
		b.WriteString("[::b]" + tview.Escape(key) + "[::-]")
		if what != "" {
			b.WriteString("[::d] " + tview.Escape(what) + "[::-]")
		}
	}
	return b.String()
}
