package console

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/markup"

	"github.com/gdamore/tcell/v2"
)

// Limits of a cell's code and output when details are hidden.
const (
	foldedCodeRows   = 12
	foldedOutputRows = 12
	liveThinkingRows = 3
)

// layoutOptions say how blocks are laid out.
type layoutOptions struct {
	width int
	// detail shows thinking and whole cell outputs.
	detail bool
	theme  *theme
}

// layoutCache keeps a block's rows for the options they were made with.
type layoutCache struct {
	valid  bool
	width  int
	detail bool
	rev    int
	rows   []line
}

// rows returns the block laid out for o, from its cache when nothing
// changed. The first row is always blank: it separates blocks.
func (b *Block) rows(o layoutOptions) []line {
	c := &b.layout
	if c.valid && c.width == o.width && c.detail == o.detail && c.rev == b.rev {
		return c.rows
	}
	*c = layoutCache{valid: true, width: o.width, detail: o.detail, rev: b.rev, rows: layout(b, o)}
	return c.rows
}

// layout lays a block out: a blank row, then its content.
func layout(b *Block, o layoutOptions) []line {
	if o.width < 12 {
		o.width = 12
	}
	l := &layouter{o: o, th: o.theme, rows: []line{nil}}
	th := o.theme
	switch b.Kind {
	case BlockUser:
		l.labelled(b.Seq, func() {
			if b.Source != "" {
				l.para("⚙ ", th.dim, "from "+b.Source+": "+b.Text, th.dim)
			} else {
				l.para("❯ ", th.user, b.Text, th.userText)
			}
		})
		l.image(b)
	case BlockQueued:
		l.para("⧗ ", th.queued, b.Text, th.dim)
		l.image(b)
		l.rows = append(l.rows, line{{"  ", th.dim}, {"queued: it joins the next model request", th.queued}})
	case BlockAssistant:
		l.labelled(b.Seq, func() { l.gutter("● ", "  ", th.assistant, th.markdown(b.Text, l.o.width-2, th.text)) })
		if b.Cut {
			l.rows = append(l.rows, line{{"  ", th.dim}, {"(cut short)", th.warn}})
		}
	case BlockThinking:
		l.thinking(b)
	case BlockCompaction:
		l.compaction(b)
	case BlockTool:
		l.tool(b)
	case BlockError:
		l.para("✗ ", th.fail, b.Text, th.fail)
		if strings.Contains(b.Text, "albedo login") {
			// The provider's hint names the shell command; here the form is nearer.
			l.rows = append(l.rows, line{{"  ", th.dim}, {"in this console: /login changes the provider's key or URL", th.warn}})
		}
		if contextFull(b.Text) {
			l.para("  ", th.dim, contextFullHint, th.warn)
		}
	case BlockTurn:
		style, text := th.warn, "turn "+b.Status
		switch b.Status {
		case wire.TurnFailed:
			style = th.fail
		case wire.TurnFinished:
			style, text = th.dim, "done"
		}
		if b.Took > 0 {
			text += " in " + client.FormatDuration(b.Took)
		}
		l.rows = append(l.rows, line{{"── " + text + " ──", style}})
	case BlockRetry:
		l.retry(b)
	case BlockNotice:
		if b.Failed {
			l.para("! ", th.fail, b.Text, th.fail)
		} else {
			l.para("· ", th.dim, b.Text, th.dim)
		}
	}
	return l.rows
}

// layouter accumulates the rows of one block.
type layouter struct {
	o    layoutOptions
	th   *theme
	rows []line
}

// para wraps text in style ts after a two-cell gutter: gutter on the
// first row, spaces after it.
func (l *layouter) para(gutter string, gs tcell.Style, text string, ts tcell.Style) {
	l.gutter(gutter, "  ", gs, wrapLines(splitLines(line{{markup.Clean(text), ts}}), l.o.width-width(gutter)))
}

// gutter appends rows after a gutter in style gs: first before the first
// row, rest before the others.
func (l *layouter) gutter(first, rest string, gs tcell.Style, rows []line) {
	for i, r := range rows {
		g := rest
		if i == 0 {
			g = first
		}
		l.rows = append(l.rows, append(line{{g, gs}}, r...))
	}
}

// image notes an attached image.
func (l *layouter) image(b *Block) {
	if img := b.Image; img != nil {
		l.rows = append(l.rows, line{{"  ", l.th.dim}, {"[image " + imageText(*img) + "]", l.th.dim}})
	}
}

// contextFullHint is what to do when the model's context is full and
// compacting cannot make room.
const contextFullHint = "the context is full: /fork N goes on from an earlier checkpoint #N, " +
	"/new starts a fresh session in this folder, /model switches to a model with a larger window"

// contextFull reports whether an error, or a /compact answer, says that
// the conversation no longer fits the model's context window.
func contextFull(text string) bool {
	return strings.Contains(text, "fit the model's context")
}

// imageText describes an image: "640x480 image/png, 12.0 KiB".
func imageText(img wire.ImageMeta) string {
	return fmt.Sprintf("%dx%d %s, %s", img.Width, img.Height, img.MimeType, size(img.Bytes))
}

// retry lays out the provider's retries of a request: the latest notice
// whole while they go on, then a trace of how many there were and how
// they ended.
func (l *layouter) retry(b *Block) {
	th := l.th
	if b.Live {
		l.para("↻ ", th.warn, b.Text, th.warn)
		return
	}
	why := b.Text
	if _, after, ok := strings.Cut(b.Text, ": "); ok {
		why = after
	}
	ended := map[string]string{
		"answered": "then the provider answered",
		"failed":   "then albedo gave up",
		"stopped":  "then the turn stopped",
	}[b.Status]
	style := th.dim
	if b.Status == "failed" {
		style = th.fail
	}
	l.para("↻ ", style, fmt.Sprintf("retried the provider %s, %s; last: %s", plural(b.Retries, "time"), ended, why), style)
}

// labelled lays text out with body, narrower by the room label(seq) needs,
// so that a long first row still leaves room for the item's id.
func (l *layouter) labelled(seq int64, body func()) {
	full := l.o.width
	if seq != 0 {
		l.o.width = max(12, full-width("#"+itoa(seq))-2)
	}
	body()
	l.o.width = full
	l.label(seq)
}

// label puts the item's id (#seq, the checkpoint /fork names) at the right
// end of the block's first row when there is room.
func (l *layouter) label(seq int64) {
	if seq == 0 || len(l.rows) < 2 {
		return
	}
	tag := "#" + itoa(seq)
	row := l.rows[1]
	used := width(row.plain())
	if gap := l.o.width - used - width(tag); gap >= 2 {
		l.rows[1] = append(row, segment{strings.Repeat(" ", gap), l.th.dim}, segment{tag, l.th.dim})
	}
}

// thinking lays out reasoning: folded to one row unless details are on;
// while it streams, its last rows.
func (l *layouter) thinking(b *Block) {
	th := l.th
	// Reasoning is markdown too (models bold its headings).
	rows := th.markdown(strings.TrimSpace(b.Text), l.o.width-2, th.thinking)
	switch {
	case l.o.detail:
		l.rows = append(l.rows, line{{"∴ ", th.thinking}, {"thinking", th.thinking}})
		l.gutter("  ", "  ", th.thinking, rows)
	case b.Live:
		l.rows = append(l.rows, line{{"∴ ", th.thinking}, {"thinking…", th.thinking}})
		l.gutter("  ", "  ", th.thinking, rows[max(0, len(rows)-liveThinkingRows):])
	default:
		l.rows = append(l.rows, line{{"∴ ", th.thinking}, {fmt.Sprintf("thinking · %s (Ctrl-T shows)", plural(filled(rows), "line")), th.thinking}})
	}
}

// filled counts the rows that are not blank.
func filled(rows []line) int {
	n := 0
	for _, r := range rows {
		if strings.TrimSpace(r.plain()) != "" {
			n++
		}
	}
	return n
}

// compaction lays out a summary of the earlier conversation: folded to
// one row unless details are on, like thinking.
func (l *layouter) compaction(b *Block) {
	th := l.th
	head := "compacted · " + b.Figures
	if !l.o.detail {
		l.rows = append(l.rows, line{{"≡ ", th.thinking}, {head + " (Ctrl-T shows the summary)", th.thinking}})
		return
	}
	l.rows = append(l.rows, line{{"≡ ", th.thinking}, {head, th.thinking}})
	l.para("  ", th.thinking, strings.TrimSpace(b.Text), th.thinking)
}

// tool lays out a cell: a header with its status, its code, its output,
// and what files it touched.
func (l *layouter) tool(b *Block) {
	th := l.th
	name := b.Name
	if name == "" {
		name = "python"
	}
	head := line{{"⚙ ", th.tool}, {name, th.tool}}
	if b.Seq != 0 {
		head = append(head, segment{" #" + itoa(b.Seq), th.dim})
	}
	switch {
	case b.Cell != nil:
		head = append(head, segment{" · ", th.dim}, segment{b.Cell.Status, statusStyle(th, b.Cell.Status)})
		if ms := b.Cell.DurationMS; ms > 0 {
			head = append(head, segment{" · " + client.FormatDuration(ms), th.dim})
		}
	case b.Live && b.Code == "":
		head = append(head, segment{" · writing the cell… " + plural(b.Args, "character"), th.warn})
	case b.Live:
		head = append(head, segment{" · running…", th.warn})
	case b.Cut:
		head = append(head, segment{" · cut short", th.warn})
	}
	l.rows = append(l.rows, head)
	codeMax, outMax := foldedCodeRows, foldedOutputRows
	if l.o.detail {
		codeMax, outMax = math.MaxInt, math.MaxInt
	}
	if code := strings.TrimRight(b.Code, "\n"); code != "" {
		if b.lit.rows == nil || b.lit.code != code {
			b.lit = highlightCache{code: code, rows: th.highlight(code, "python", th.code)}
		}
		l.block("│ ", b.lit.rows, codeMax, false)
	}
	if b.Cell == nil {
		l.section("output", th.dim, b.Printed, th.text, foldedOutputRows)
	}
	if c := b.Cell; c != nil {
		l.section("output", th.dim, c.Output, th.text, outMax)
		if c.Value != "" {
			// The value is the repr of the cell's last expression, Python,
			// and the kernel clips it: highlighting it at each layout is cheap.
			rows := wrapLines(th.highlight(c.Value, "python", th.text), l.o.width-width("│ = "))
			l.gutter("│ = ", "│   ", th.frame, rows[:min(len(rows), outMax)])
		}
		for _, img := range c.Images {
			l.rows = append(l.rows, line{{"├ ", th.frame}, {"image shown to the model: " + imageText(img), th.dim}})
		}
		l.section("error", th.fail, c.Error, th.fail, outMax)
	}
	if b.Trace != "" {
		l.para("└ ", th.frame, b.Trace, th.dim)
	} else if b.Cell != nil || b.Code != "" {
		l.rows = append(l.rows, line{{"└", th.frame}})
	}
}

// section lays out a titled part of a cell (its output, its error) when
// text holds more than newlines: the title, then text's last keep rows.
func (l *layouter) section(title string, ts tcell.Style, text string, style tcell.Style, keep int) {
	if text = strings.TrimRight(text, "\n"); text != "" {
		l.rows = append(l.rows, line{{"├ ", l.th.frame}, {title, ts}})
		l.block("│ ", l.th.outputLines(text, style), keep, true)
	}
}

// block lays out rows after a frame, wrapped to fit, keeping at most keep
// rows: the first ones, or the last ones when tail is set.
func (l *layouter) block(frame string, lines []line, keep int, tail bool) {
	rows := wrapLines(lines, l.o.width-width(frame))
	hidden := max(0, len(rows)-keep)
	if tail {
		rows = rows[hidden:]
	} else {
		rows = rows[:len(rows)-hidden]
	}
	note := line{{frame, l.th.frame}, {fmt.Sprintf("… %s more (Ctrl-T shows all)", plural(hidden, "line")), l.th.dim}}
	if hidden > 0 && tail {
		l.rows = append(l.rows, note)
	}
	l.gutter(frame, frame, l.th.frame, rows)
	if hidden > 0 && !tail {
		l.rows = append(l.rows, note)
	}
}

// statusStyle colours a cell status.
func statusStyle(th *theme, status string) tcell.Style {
	switch status {
	case "ok":
		return th.ok
	case "interrupted":
		return th.warn
	}
	return th.fail
}

// plural says "1 line", "3 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// size formats a byte count.
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// itoa formats a whole number.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// tokens formats a token count briefly: 950, 12.3k, 4.1M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return itoa(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}
