package markup

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// markdown returns the goldmark configuration of albedo's dialect.
func markdown() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify, extension.TaskList))
}

// NewParser returns a parser of albedo's markdown dialect.
func NewParser() parser.Parser { return markdown().Parser() }

// BlockSource returns the source of a block node's lines (an HTML block's
// with its closing line), without the newlines that end it.
func BlockSource(n ast.Node, source []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(source))
	}
	if h, ok := n.(*ast.HTMLBlock); ok && h.HasClosure() {
		b.Write(h.ClosureLine.Value(source))
	}
	return strings.TrimRight(b.String(), "\n")
}
