package console

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// anchor is a row of the transcript: a block and a row within it.
type anchor struct{ block, row int }

// TranscriptView draws a Transcript. It lays out only the blocks it shows,
// so its cost per frame does not grow with the transcript: it either
// follows the end (the newest rows at the bottom) or shows the rows from
// a top anchor down. Block layouts are cached per width and re-made on
// resize.
type TranscriptView struct {
	*tview.Box
	t      *Transcript
	opts   layoutOptions
	follow bool
	top    anchor
	// height is the number of rows of the last frame.
	height int
}

// NewTranscriptView returns a view of t that follows its end.
func NewTranscriptView(t *Transcript) *TranscriptView {
	return &TranscriptView{Box: tview.NewBox(), t: t, opts: layoutOptions{theme: defaultTheme()}, follow: true}
}

// SetTranscript shows another transcript (or a reset one), following its
// end.
func (v *TranscriptView) SetTranscript(t *Transcript) {
	v.t, v.follow, v.top = t, true, anchor{}
}

// Detail reports whether thinking and whole cell outputs are shown.
func (v *TranscriptView) Detail() bool { return v.opts.detail }

// SetDetail shows or folds thinking and long cell outputs.
func (v *TranscriptView) SetDetail(on bool) { v.opts.detail = on }

// Following reports whether the view sticks to the end of the transcript.
func (v *TranscriptView) Following() bool { return v.follow }

// ScrollToEnd makes the view follow the end of the transcript.
func (v *TranscriptView) ScrollToEnd() { v.follow = true }

// PageSize is how many rows a page scroll moves.
func (v *TranscriptView) PageSize() int { return max(1, v.height-2) }

// rows returns block i laid out at the view's width.
func (v *TranscriptView) rows(i int) []line { return v.t.Blocks[i].rows(v.opts) }

// bottom returns the top anchor of a frame that ends with the last row.
func (v *TranscriptView) bottom() anchor {
	need := v.height
	for i := len(v.t.Blocks) - 1; i >= 0; i-- {
		n := len(v.rows(i))
		if n >= need {
			return anchor{i, n - need}
		}
		need -= n
	}
	return anchor{}
}

// current returns the top anchor of the frame shown.
func (v *TranscriptView) current() anchor {
	if v.follow {
		return v.bottom()
	}
	a := v.top
	if n := len(v.t.Blocks); a.block >= n {
		return v.bottom()
	}
	if r := len(v.rows(a.block)); a.row >= r {
		a.row = r - 1
	}
	return a
}

// fits reports whether the rows from a to the end fit in one frame.
func (v *TranscriptView) fits(a anchor) bool {
	left := v.height
	for i := a.block; i < len(v.t.Blocks); i++ {
		n := len(v.rows(i))
		if i == a.block {
			n -= a.row
		}
		if left -= n; left < 0 {
			return false
		}
	}
	return true
}

// ScrollBy moves the view n rows down (up when n < 0). Reaching the end
// makes it follow again.
func (v *TranscriptView) ScrollBy(n int) {
	if len(v.t.Blocks) == 0 {
		return
	}
	a := v.current()
	for n < 0 {
		if a.row > 0 {
			step := min(-n, a.row)
			a.row -= step
			n += step
			continue
		}
		if a.block == 0 {
			break
		}
		a.block--
		a.row = len(v.rows(a.block))
	}
	for n > 0 {
		left := len(v.rows(a.block)) - a.row
		if n < left {
			a.row += n
			break
		}
		if a.block == len(v.t.Blocks)-1 {
			break
		}
		n -= left
		a.block++
		a.row = 0
	}
	v.top, v.follow = a, v.fits(a)
}

// Draw draws the visible rows. It paints every cell of its area itself
// (clearing it first would paint each twice) and draws no border.
func (v *TranscriptView) Draw(screen tcell.Screen) {
	x, y, w, h := v.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	v.opts.width, v.height = w, h
	a := v.current()
	row := 0
	for i := a.block; i < len(v.t.Blocks) && row < h; i++ {
		rows := v.rows(i)
		start := 0
		if i == a.block {
			start = a.row
		}
		for _, l := range rows[min(start, len(rows)):] {
			if row >= h {
				break
			}
			clearFrom(screen, x+drawLine(screen, x, y+row, w, l), x+w, y+row)
			row++
		}
	}
	for ; row < h; row++ {
		clearFrom(screen, x, x+w, y+row)
	}
	if !v.follow {
		tag := " ↓ more below · PgDn "
		drawLine(screen, x+max(0, w-width(tag)), y+h-1, w, line{{tag, v.opts.theme.warn.Reverse(true)}})
	}
}

// MouseHandler scrolls with the wheel.
func (v *TranscriptView) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
	return v.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
		if !v.InRect(event.Position()) {
			return false, nil
		}
		switch action {
		case tview.MouseScrollUp:
			v.ScrollBy(-3)
			return true, nil
		case tview.MouseScrollDown:
			v.ScrollBy(3)
			return true, nil
		}
		return false, nil
	})
}

// clearFrom blanks row y from column x up to end.
func clearFrom(screen tcell.Screen, x, end, y int) {
	for ; x < end; x++ {
		screen.SetContent(x, y, ' ', nil, tcell.StyleDefault)
	}
}

// drawLine draws a line at x, y, clipped to w cells, and returns how many
// cells it took.
func drawLine(screen tcell.Screen, x, y, w int, l line) int {
	col := 0
	for _, seg := range l {
		text := seg.text
		for len(text) > 0 && col < w {
			cluster, rest, cw := nextCluster(text)
			text = rest
			if len(cluster) == 1 {
				screen.SetContent(x+col, y, rune(cluster[0]), nil, seg.style)
				col++
				continue
			}
			if cw == 0 {
				continue // a stray zero-width cluster: nothing to draw
			}
			if col+cw > w {
				return col
			}
			runes := []rune(cluster)
			screen.SetContent(x+col, y, runes[0], runes[1:], seg.style)
			col += cw
		}
	}
	return col
}
