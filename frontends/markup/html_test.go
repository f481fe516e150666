package markup

import (
	"strings"
	"testing"
)

func TestHTMLShowsAnswersByAlbedosRules(t *testing.T) {
	tests := []struct {
		name, source string
		want         []string
		never        []string
	}{
		{"a heading", "# Plan\n\ntext", []string{"<h1>Plan</h1>", "<p>text</p>"}, nil},
		{"a table", "| a | b |\n|---|--:|\n| 1 | 2 |", []string{"<table>", "<th>a</th>", `<td style="text-align:right">2</td>`}, nil},
		{"highlighted python", "```python\nimport os\nn = 42\n```", []string{`<pre class="code" data-lang="python"><code><span class="hl-keyword">import</span> os`, `<span class="hl-number">42</span>`}, nil},
		{"code of an unknown language, plain", "```go\nx := 1\n```", []string{`<pre class="code" data-lang="go"><code>x := 1</code></pre>`}, []string{"hl-"}},
		{"inline raw HTML as text", "see <img src=x onerror=alert(1)> here", []string{`<span class="raw-html">&lt;img src=x onerror=alert(1)&gt;</span>`}, []string{"<img"}},
		{"a block of raw HTML as text", "<script>alert(1)</script>", []string{`<p class="raw-html">&lt;script&gt;alert(1)&lt;/script&gt;</p>`}, []string{"<script"}},
		{"an HTML comment as text", "<!-- x -->", []string{"&lt;!-- x --&gt;"}, []string{"<!--"}},
		{"code keeps its markup as text", "```html\n<b>x</b>\n```", []string{"&lt;b&gt;x&lt;/b&gt;"}, []string{"<b>"}},
		{"an image as its description", "![chart](http://example.com/x.png)", []string{`<span class="image-ref">[image: chart] (http://example.com/x.png)</span>`}, []string{"<img"}},
		{"a javascript link loses its address", "[go](javascript:alert(1))", []string{`href=""`}, []string{"javascript:"}},
		{"a link opens apart", "[docs](https://example.com/a?b=1&c=2)", []string{`<a rel="noopener noreferrer" target="_blank" href="https://example.com/a?b=1&amp;c=2">docs</a>`}, nil},
		{"a bare address is a link", "at www.example.com now", []string{`href="http://www.example.com"`}, nil},
		{"a quote in an attribute", `[x](http://a.example/"onmouseover="alert(1))`, nil, []string{`"onmouseover`}},
		{"terminal escapes go", "\x1b[31mred\x1b[0m", []string{"<p>red</p>"}, []string{"\x1b"}},
		{"a task list", "- [x] done\n- [ ] todo", []string{`checked=""`, "done"}, nil},
	}
	h := NewHTML()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.Render(tt.source)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("HTML lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.never {
				if strings.Contains(got, n) {
					t.Errorf("HTML holds %q:\n%s", n, got)
				}
			}
		})
	}
}

func TestTokensAddUpToTheCode(t *testing.T) {
	h := NewHighlighter()
	tests := []struct {
		name, code, lang string
		want             []Token
	}{
		{"python", "import os\nn = 42", "python", []Token{{"import", Keyword}, {" os\nn ", Plain}, {"=", Operator}, {" ", Plain}, {"42", Number}}},
		{"shell", "echo ${PATH}", "sh", []Token{{"echo ", Plain}, {"${PATH}", Constant}}},
		{"unknown", "x := 1", "go", []Token{{"x := 1", Plain}}},
		{"a final newline kept", "None\n", "py", []Token{{"None", Constant}, {"\n", Plain}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := h.Tokens(tt.code, tt.lang)
			if len(got) != len(tt.want) {
				t.Fatalf("Tokens = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("token %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
