package markup

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// markdown returns the goldmark configuration of albedo's dialect.
func markdown() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify, extension.TaskList))
}

// NewParser returns a parser of albedo's markdown dialect.
func NewParser() parser.Parser { return markdown().Parser() }
