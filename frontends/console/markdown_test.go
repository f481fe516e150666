package console

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/yuin/goldmark/text"
)

// renderPlain renders markdown at width and returns its rows as text.
func renderPlain(source string, width int) string {
	th := defaultTheme()
	var out []string
	for _, l := range th.markdown(source, width, th.text) {
		out = append(out, strings.TrimRight(l.plain(), " "))
	}
	return strings.Join(out, "\n")
}

func TestMarkdownLayout(t *testing.T) {
	tests := []struct {
		name   string
		source string
		width  int
		want   string
	}{
		{"heading loses its marks", "## Result\n\nall good", 40, "Result\n──────\n\nall good"},
		{"the first two heading levels are ruled, heavy then light", "# Top\n\n## Part\n\n### Detail", 40, "Top\n━━━\n\nPart\n────\n\nDetail"},
		{"a long heading's rule stops at the width", "# a heading longer than ten", 10, "a heading\nlonger\nthan ten\n━━━━━━━━━"},
		{"task-list items show their boxes", "- [ ] to do\n- [x] done\n- plain", 40, "☐ to do\n☑ done\n• plain"},
		{"emphasis loses its marks", "a **bold** and *soft* word", 40, "a bold and soft word"},
		{"soft breaks join, paragraphs wrap", "one two\nthree four five six", 12, "one two\nthree four\nfive six"},
		{"tight bullet list", "- one\n- two\n  - nested", 40, "• one\n• two\n  • nested"},
		{"numbered list aligns its numbers", "9. nine\n10. ten", 40, " 9. nine\n10. ten"},
		{"list items wrap under their text", "- alpha beta gamma delta", 14, "• alpha beta\n  gamma delta"},
		{"fenced code keeps its lines", "```python\nx = 1\nif x:\n    print(x)\n```", 40, "│ x = 1\n│ if x:\n│     print(x)"},
		{"inline code", "run `go test` now", 40, "run go test now"},
		{"link shows its address", "see [the docs](https://example.com/d)", 60, "see the docs (https://example.com/d)"},
		{"bare link", "at https://example.com today", 60, "at https://example.com today"},
		{"table", "| name | n |\n|------|--:|\n| a | 1 |\n| bb | 22 |", 40, "name │  n\n─────┼───\na    │  1\nbb   │ 22"},
		{"narrow table wraps its cells", "| word | text |\n|---|---|\n| x | one two three |", 16, "word │ text\n─────┼──────────\nx    │ one two\n     │ three"},
		{"quote", "> careful", 40, "▌ careful"},
		{"rule", "a\n\n---\n\nb", 5, "a\n\n─────\n\nb"},
		{"unclosed fence while streaming", "look:\n```python\nx = ", 40, "look:\n\n│ x ="},
		{"empty", "", 40, ""},
		{"plain prose joins its lines", "one\n  two\n\n\nthree", 40, "one two\n\nthree"},
		{"a number starts a list", "steps\n\n1. go", 40, "steps\n\n1. go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderPlain(tt.source, tt.width); got != tt.want {
				t.Errorf("render(%q)\n got: %q\nwant: %q", tt.source, got, tt.want)
			}
		})
	}
}

// styleOf returns the style of the first segment whose text contains
// needle in rows.
func styleOf(t *testing.T, rows []line, needle string) tcell.Style {
	t.Helper()
	for _, l := range rows {
		for _, s := range l {
			if strings.Contains(s.text, needle) {
				return s.style
			}
		}
	}
	t.Fatalf("no segment holds %q in %v", needle, rows)
	return tcell.StyleDefault
}

// styled is a text and the style it must be drawn in.
type styled struct {
	needle string
	want   tcell.Style
}

// wantStyles fails for every needle of want that rows do not draw in its
// style.
func wantStyles(t *testing.T, rows []line, want []styled) {
	t.Helper()
	for _, w := range want {
		if got := styleOf(t, rows, w.needle); got != w.want {
			t.Errorf("%q is drawn in %v, want %v", w.needle, got, w.want)
		}
	}
}

func TestPlainProseRendersAsMarkdownWould(t *testing.T) {
	th := defaultTheme()
	for _, source := range []string{"one two three four five six seven", "a\nb\n\nc d e f g h i j k l", "  lead\nand trail  x\n\n"} {
		if !plainProse(source) {
			t.Fatalf("%q is not plain prose", source)
		}
		r := &mdRenderer{src: []byte(source), th: th, base: th.text}
		r.blocks(th.md.Parse(text.NewReader([]byte(source))), 10)
		var parsed, fast []string
		for _, l := range r.rows {
			parsed = append(parsed, l.plain())
		}
		for _, l := range proseRows(source, 10, th.text) {
			fast = append(fast, l.plain())
		}
		if strings.Join(parsed, "|") != strings.Join(fast, "|") {
			t.Errorf("%q: the parser lays out %q, the shortcut %q", source, parsed, fast)
		}
	}
	for _, source := range []string{"**b**", "- x", "1. x", "a\n===", "see https://x.y", "    code", "a  \nb", "x | y"} {
		if plainProse(source) {
			t.Errorf("%q is taken for plain prose", source)
		}
	}
}

func TestMarkdownStyles(t *testing.T) {
	th := defaultTheme()
	rows := th.markdown("# Title\n\na **bold** *soft* ~~gone~~ `code` [link](http://x)\n\n```python\ndef greet():\n    return 'hi'  # done\n```", 60, th.text)
	wantStyles(t, rows, []styled{
		{"Title", th.heading.Underline(true)},
		{"━━━", th.heading},
		{"bold", th.text.Bold(true)},
		{"soft", th.text.Italic(true)},
		{"gone", th.text.StrikeThrough(true)},
		{"code", th.code},
		{"link", th.link},
		{"def", th.synKeyword},
		{"greet", th.synFunction},
		{"'hi'", th.synString},
		{"# done", th.synComment},
		{"return", th.synKeyword},
	})
}

func TestMarkdownHighlightsShellBlocks(t *testing.T) {
	th := defaultTheme()
	for _, lang := range []string{"bash", "sh", "shell", "console"} {
		t.Run(lang, func(t *testing.T) {
			rows := th.markdown("```"+lang+"\n# build it\nif [ -n \"$HOME\" ]; then go test --count=1 ./... && echo 'ok'; fi\n```", 100, th.text)
			wantStyles(t, rows, []styled{
				{"# build it", th.synComment},
				{"if", th.synKeyword},
				{`"$HOME"`, th.synString},
				{"--count=", th.synBuiltin},
				{"&&", th.synOperator},
				{"'ok'", th.synString},
				{"fi", th.synKeyword},
			})
		})
	}
	rows := th.markdown("```bash\necho ${PATH}\n```", 40, th.text)
	wantStyles(t, rows, []styled{{"${PATH}", th.synConstant}, {"echo", th.code}})
}

func TestHighlightPython(t *testing.T) {
	th := defaultTheme()
	rows := th.highlight("import os\nn = 42\nprint(None, \"s\")", "python", th.code)
	if len(rows) != 3 {
		t.Fatalf("got %d rows, want 3: %v", len(rows), rows)
	}
	wantStyles(t, rows, []styled{
		{"import", th.synKeyword},
		{"42", th.synNumber},
		{"print", th.synBuiltin},
		{"None", th.synConstant},
		{`"s"`, th.synString},
		{"os", th.code},
	})
	if plain := th.highlight("x = 1", "go", th.code); len(plain) != 1 || plain[0][0].style != th.code {
		t.Errorf("an unknown language is not left plain: %v", plain)
	}
}

func TestWrapLineKeepsStyles(t *testing.T) {
	th := defaultTheme()
	l := line{{"plain words ", th.text}, {"bold words", th.bold}}
	rows := wrapLine(l, 12)
	want := []line{{{"plain words", th.text}}, {{"bold words", th.bold}}}
	if len(rows) != len(want) {
		t.Fatalf("got %v, want %v", rows, want)
	}
	for i := range want {
		if rows[i].plain() != want[i].plain() || rows[i][0].style != want[i][0].style {
			t.Errorf("row %d: got %v, want %v", i, rows[i], want[i])
		}
	}
	if got := wrapLine(line{{"abcdefgh", th.text}}, 3); len(got) != 3 || got[2].plain() != "gh" {
		t.Errorf("a long word is not broken: %v", got)
	}
}
