package console

import (
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/frontends/markup"
	"github.com/gdamore/tcell/v2"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// markdown lays out the model's answers: markup's parser reads source in
// albedo's dialect, and this draws the tree at width w in base style as
// styled rows for the terminal.
func (th *theme) markdown(source string, w int, base tcell.Style) []line {
	source = markup.Clean(source)
	if plainProse(source) {
		return proseRows(source, w, base)
	}
	src := []byte(source)
	doc := th.md.Parse(text.NewReader(src))
	r := &mdRenderer{src: src, th: th, base: base}
	r.blocks(doc, w)
	if len(r.rows) == 0 {
		r.rows = []line{nil}
	}
	return r.rows
}

// plainProse reports whether source holds nothing markdown would render
// otherwise than as paragraphs of words, so that the parser can be
// skipped: most streamed text, re-rendered at every fragment, is such.
func plainProse(source string) bool {
	if strings.ContainsAny(source, "*_`[]<>#|~\\&@") || strings.Contains(source, "://") || strings.Contains(source, "www.") {
		return false
	}
	for row := range strings.SplitSeq(source, "\n") {
		trimmed := strings.TrimLeft(row, " ")
		if trimmed != "" && (len(row)-len(trimmed) >= 4 || strings.ContainsAny(trimmed[:1], "-+=0123456789") || strings.HasSuffix(row, "  ")) {
			return false
		}
	}
	return true
}

// proseRows lays out plain prose as markdown would: lines joined into
// paragraphs, paragraphs apart by a blank row.
func proseRows(source string, w int, style tcell.Style) []line {
	var rows []line
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		if len(rows) > 0 {
			rows = append(rows, nil)
		}
		for _, r := range wrap(strings.Join(para, " "), w) {
			rows = append(rows, line{{r, style}})
		}
		para = para[:0]
	}
	for row := range strings.SplitSeq(source, "\n") {
		if row = strings.TrimSpace(row); row == "" {
			flush()
		} else {
			para = append(para, row)
		}
	}
	flush()
	if len(rows) == 0 {
		rows = []line{nil}
	}
	return rows
}

// mdRenderer accumulates the rows of one document.
type mdRenderer struct {
	src  []byte
	th   *theme
	base tcell.Style
	rows []line
}

// blocks lays out the block children of n at width w, a blank row
// between them (none between the items of a tight list).
func (r *mdRenderer) blocks(n ast.Node, w int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() && !tightItem(c) {
			r.rows = append(r.rows, nil)
		}
		r.block(c, w)
	}
}

// tightItem reports whether c is a block that follows its sibling without
// a blank row: an item of a tight list, or a tight item's nested list.
func tightItem(c ast.Node) bool {
	if l, ok := c.Parent().(*ast.List); ok {
		return l.IsTight
	}
	if _, ok := c.Parent().(*ast.ListItem); ok {
		if l, ok := c.Parent().Parent().(*ast.List); ok && l.IsTight {
			return true
		}
	}
	return false
}

// block lays out one block node.
func (r *mdRenderer) block(n ast.Node, w int) {
	th := r.th
	switch n := n.(type) {
	case *ast.Heading:
		r.heading(n, w)
	case *ast.Paragraph, *ast.TextBlock:
		r.paragraph(r.inlines(n, r.base), w)
	case *ast.ThematicBreak:
		r.rows = append(r.rows, line{{strings.Repeat("─", min(w, 40)), th.frame}})
	case *ast.FencedCodeBlock:
		r.code(string(n.Language(r.src)), markup.BlockSource(n, r.src), w)
	case *ast.CodeBlock:
		r.code("", markup.BlockSource(n, r.src), w)
	case *ast.HTMLBlock:
		r.paragraph(line{{markup.BlockSource(n, r.src), th.dim}}, w)
	case *ast.Blockquote:
		r.indent(line{{"▌ ", th.frame}}, line{{"▌ ", th.frame}}, func(w int) {
			saved := r.base
			r.base = th.quote
			r.blocks(n, w)
			r.base = saved
		}, w)
	case *ast.List:
		r.list(n, w)
	case *extast.Table:
		r.table(n, w)
	default:
		if n.HasChildren() {
			r.blocks(n, w)
		}
	}
}

// headingRules are the rules under headings of levels 1 and 2: the level
// shows without the # marks.
var headingRules = map[int]string{1: "━", 2: "─"}

// heading lays out a heading: level 1 underlined by a heavy rule, level 2
// by a light one, both in the heading colour; deeper levels bold only.
func (r *mdRenderer) heading(n *ast.Heading, w int) {
	style := r.th.heading
	switch {
	case n.Level == 1:
		style = style.Underline(true)
	case n.Level > 2:
		style = r.base.Bold(true)
	}
	from := len(r.rows)
	r.paragraph(r.inlines(n, style), w)
	rule, ok := headingRules[n.Level]
	if !ok {
		return
	}
	wide := 0
	for _, row := range r.rows[from:] {
		wide = max(wide, width(row.plain()))
	}
	r.rows = append(r.rows, line{{strings.Repeat(rule, min(max(wide, 3), w)), r.th.heading}})
}

// indent lays out what body adds at a narrower width and puts first
// before its first row and rest before the others.
func (r *mdRenderer) indent(first, rest line, body func(w int), w int) {
	from := len(r.rows)
	body(max(w-width(first.plain()), 4))
	for i := from; i < len(r.rows); i++ {
		p := rest
		if i == from {
			p = first
		}
		r.rows[i] = append(append(line{}, p...), r.rows[i]...)
	}
}

// list lays out a list: a bullet or number on each item's first row.
func (r *mdRenderer) list(n *ast.List, w int) {
	num := n.Start
	items := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		items++
	}
	wide := len(strconv.Itoa(num + items - 1))
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() && !n.IsTight {
			r.rows = append(r.rows, nil)
		}
		marker, style := "• ", r.th.assistant
		if n.IsOrdered() {
			marker = strings.Repeat(" ", wide-len(strconv.Itoa(num))) + strconv.Itoa(num) + ". "
			num++
		}
		if box := taskBox(c); box != nil {
			// A task: its box stands for the bullet.
			marker, style = "☐ ", r.th.warn
			if box.IsChecked {
				marker, style = "☑ ", r.th.ok
			}
		}
		item := c
		r.indent(line{{marker, style}}, line{{strings.Repeat(" ", width(marker)), r.base}}, func(w int) { r.blocks(item, w) }, w)
	}
}

// taskBox returns the check box a task-list item starts with, or nil.
func taskBox(item ast.Node) *extast.TaskCheckBox {
	if first := item.FirstChild(); first != nil {
		box, _ := first.FirstChild().(*extast.TaskCheckBox)
		return box
	}
	return nil
}

// code lays out a code block, highlighted when its language is known,
// after a frame.
func (r *mdRenderer) code(lang, code string, w int) {
	for _, row := range wrapLines(r.th.highlight(code, lang, r.th.code), max(w-2, 4)) {
		r.rows = append(r.rows, append(line{{"│ ", r.th.frame}}, row...))
	}
}

// paragraph wraps inline content, which may hold newlines (hard breaks).
func (r *mdRenderer) paragraph(l line, w int) {
	r.rows = append(r.rows, wrapLines(splitLines(l), w)...)
}

// inlines renders the inline children of n in style as one line; hard
// breaks are newlines in its text.
func (r *mdRenderer) inlines(n ast.Node, style tcell.Style) line {
	var out line
	add := func(s string, st tcell.Style) { out = out.add(s, st) }
	var walk func(n ast.Node, st tcell.Style)
	walk = func(n ast.Node, st tcell.Style) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *extast.TaskCheckBox:
				// Shown as the item's bullet; the space after it is the
				// text's.
			case *ast.Text:
				text := string(c.Value(r.src))
				if _, ok := c.PreviousSibling().(*extast.TaskCheckBox); ok {
					text = strings.TrimLeft(text, " ")
				}
				add(text, st)
				switch {
				case c.HardLineBreak():
					add("\n", st)
				case c.SoftLineBreak():
					add(" ", st)
				}
			case *ast.String:
				add(string(c.Value), st)
			case *ast.CodeSpan:
				var b strings.Builder
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					switch t := t.(type) {
					case *ast.Text:
						b.Write(t.Value(r.src))
					case *ast.String:
						b.Write(t.Value)
					}
				}
				add(strings.ReplaceAll(b.String(), "\n", " "), r.th.code)
			case *ast.Emphasis:
				if c.Level >= 2 {
					walk(c, st.Bold(true))
				} else {
					walk(c, st.Italic(true))
				}
			case *extast.Strikethrough:
				walk(c, st.StrikeThrough(true))
			case *ast.Link:
				before := len(out)
				walk(c, r.th.link)
				shown := line(out[before:]).plain()
				if dest := string(c.Destination); dest != "" && dest != shown {
					add(" ("+dest+")", r.th.dim)
				}
			case *ast.AutoLink:
				add(string(c.Label(r.src)), r.th.link)
			case *ast.Image:
				add("[image: ", r.th.dim)
				walk(c, r.th.dim)
				add("] ("+string(c.Destination)+")", r.th.dim)
			case *ast.RawHTML:
				for i := 0; i < c.Segments.Len(); i++ {
					seg := c.Segments.At(i)
					add(string(seg.Value(r.src)), r.th.dim)
				}
			default:
				walk(c, st)
			}
		}
	}
	walk(n, style)
	return out
}

// table lays out a table: columns as wide as their widest cell, shrunk
// to fit w (cells then wrap), the header bold over a rule.
func (r *mdRenderer) table(n *extast.Table, w int) {
	var grid [][]line
	var aligns []extast.Alignment
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []line
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			style := r.base
			if _, ok := row.(*extast.TableHeader); ok {
				style = style.Bold(true)
			}
			cells = append(cells, r.inlines(c, style))
			if tc, ok := c.(*extast.TableCell); ok && len(grid) == 0 {
				aligns = append(aligns, tc.Alignment)
			}
		}
		grid = append(grid, cells)
	}
	cols := 0
	for _, row := range grid {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return
	}
	// Columns past the header's have no alignment (the zero value).
	aligns = append(aligns, make([]extast.Alignment, cols)...)
	widths := make([]int, cols)
	for _, row := range grid {
		for i, c := range row {
			widths[i] = max(widths[i], width(strings.ReplaceAll(c.plain(), "\n", " ")))
		}
	}
	fitColumns(widths, w-3*(cols-1))
	sep := segment{" │ ", r.th.frame}
	for ri, row := range grid {
		wrapped := make([][]line, cols)
		height := 1
		for i := range cols {
			var c line
			if i < len(row) {
				c = row[i]
			}
			wrapped[i] = wrapLines(splitLines(c), widths[i])
			height = max(height, len(wrapped[i]))
		}
		for k := range height {
			var out line
			for i := range cols {
				if i > 0 {
					out = append(out, sep)
				}
				var cell line
				if k < len(wrapped[i]) {
					cell = wrapped[i][k]
				}
				out = append(out, pad(cell, widths[i], aligns[i], r.base)...)
			}
			r.rows = append(r.rows, trimLine(out))
		}
		if ri == 0 {
			var rule strings.Builder
			for i, cw := range widths {
				if i > 0 {
					rule.WriteString("─┼─")
				}
				rule.WriteString(strings.Repeat("─", cw))
			}
			r.rows = append(r.rows, line{{rule.String(), r.th.frame}})
		}
	}
}

// fitColumns narrows the widest columns until they add up to at most
// room, never below three cells.
func fitColumns(widths []int, room int) {
	for {
		total, widest := 0, 0
		for i, cw := range widths {
			total += cw
			if cw > widths[widest] {
				widest = i
			}
		}
		if total <= room || widths[widest] <= 3 {
			return
		}
		widths[widest]--
	}
}

// pad fills a cell to w cells as its column is aligned.
func pad(cell line, w int, a extast.Alignment, style tcell.Style) line {
	gap := max(w-width(cell.plain()), 0)
	left := 0
	switch a {
	case extast.AlignRight:
		left = gap
	case extast.AlignCenter:
		left = gap / 2
	}
	out := line{{strings.Repeat(" ", left), style}}
	out = append(out, cell...)
	return append(out, segment{strings.Repeat(" ", gap-left), style})
}
