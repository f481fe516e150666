package markup

import (
	"bytes"
	"fmt"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// HTML renders answers as HTML fragments by albedo's rules: raw HTML in
// the text shows as text, an image as its description and address (a
// page fetches nothing an answer names), a link of a dangerous scheme
// (javascript:, and the like) loses its address, and code in a known
// language is highlighted with one class per token class (cssClasses).
// An HTML value is safe for concurrent use.
type HTML struct {
	md goldmark.Markdown
}

// NewHTML returns an HTML renderer.
func NewHTML() *HTML {
	md := markdown()
	md.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(&htmlRules{hl: NewHighlighter()}, 100)))
	return &HTML{md: md}
}

// Render returns source, an answer in markdown, as an HTML fragment.
func (h *HTML) Render(source string) (string, error) {
	src := []byte(Clean(source))
	doc := h.md.Parser().Parse(text.NewReader(src))
	var b bytes.Buffer
	if err := h.md.Renderer().Render(&b, src, doc); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	return b.String(), nil
}

// cssClasses names each class in HTML; Plain tokens have none.
var cssClasses = map[Class]string{
	Keyword: "hl-keyword", Constant: "hl-constant", String: "hl-string", Number: "hl-number",
	Comment: "hl-comment", Function: "hl-function", Builtin: "hl-builtin", Operator: "hl-operator",
}

// htmlRules render the nodes whose HTML albedo decides itself.
type htmlRules struct {
	hl *Highlighter
}

// RegisterFuncs registers the rules with goldmark's renderer.
func (r *htmlRules) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, r.htmlBlock)
	reg.Register(ast.KindRawHTML, r.rawHTML)
	reg.Register(ast.KindFencedCodeBlock, r.code)
	reg.Register(ast.KindCodeBlock, r.code)
	reg.Register(ast.KindImage, r.image)
	reg.Register(ast.KindLink, r.link)
	reg.Register(ast.KindAutoLink, r.autoLink)
}

// htmlBlock shows a block of raw HTML as a paragraph of its text.
func (r *htmlRules) htmlBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	w.WriteString(`<p class="raw-html">`)
	w.Write(util.EscapeHTML([]byte(BlockSource(node, source))))
	w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

// rawHTML shows inline raw HTML as its text.
func (r *htmlRules) rawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	w.WriteString(`<span class="raw-html">`)
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		w.Write(util.EscapeHTML(seg.Value(source)))
	}
	w.WriteString("</span>")
	return ast.WalkSkipChildren, nil
}

// code writes a code block: a pre element naming its language, each token
// in a span of its class. A fenced block is highlighted when its language
// is known, an indented one never.
func (r *htmlRules) code(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	lang := ""
	if n, ok := node.(*ast.FencedCodeBlock); ok {
		lang = string(n.Language(source))
	}
	w.WriteString(`<pre class="code"`)
	if lang != "" {
		w.WriteString(` data-lang="`)
		w.Write(util.EscapeHTML([]byte(lang)))
		w.WriteString(`"`)
	}
	w.WriteString("><code>")
	for _, tok := range r.hl.Tokens(BlockSource(node, source), lang) {
		escaped := util.EscapeHTML([]byte(tok.Text))
		if class := cssClasses[tok.Class]; class != "" {
			w.WriteString(`<span class="` + class + `">`)
			w.Write(escaped)
			w.WriteString("</span>")
		} else {
			w.Write(escaped)
		}
	}
	w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// image shows an image as its description and address, never fetched.
func (r *htmlRules) image(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Image)
	if entering {
		w.WriteString(`<span class="image-ref">[image: `)
		return ast.WalkContinue, nil
	}
	w.WriteString("] (")
	w.Write(util.EscapeHTML(n.Destination))
	w.WriteString(")</span>")
	return ast.WalkContinue, nil
}

// link writes a link that opens apart from the page, without its
// address when the scheme is dangerous.
func (r *htmlRules) link(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	if !entering {
		w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	openLink(w, util.URLEscape(n.Destination, true))
	if n.Title != nil {
		w.WriteString(` title="`)
		w.Write(util.EscapeHTML(n.Title))
		w.WriteString(`"`)
	}
	w.WriteString(">")
	return ast.WalkContinue, nil
}

// autoLink writes a bare address as a link to it.
func (r *htmlRules) autoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	url := util.URLEscape(n.URL(source), false)
	if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(url), []byte("mailto:")) {
		url = append([]byte("mailto:"), url...)
	}
	openLink(w, url)
	w.WriteString(">")
	w.Write(util.EscapeHTML(n.Label(source)))
	w.WriteString("</a>")
	return ast.WalkContinue, nil
}

// openLink writes the start of an a element up to its attributes' end.
func openLink(w util.BufWriter, url []byte) {
	w.WriteString(`<a rel="noopener noreferrer" target="_blank" href="`)
	if !html.IsDangerousURL(url) {
		w.Write(util.EscapeHTML(url))
	}
	w.WriteString(`"`)
}
