package markup

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// Class is what a token of highlighted code is, as far as its colour
// goes.
type Class int

// The classes of highlighted code.
const (
	Plain Class = iota
	Keyword
	Constant
	String
	Number
	Comment
	Function
	Builtin
	Operator
)

// Token is a run of code of one class.
type Token struct {
	Text  string
	Class Class
}

// Highlighter splits code into classed tokens with chroma's lexing
// engine. It knows Python, the language of albedo's cells, and the shell,
// the language of the commands answers show, through rules of its own:
// chroma's registry of every language (package lexers) parses 250 lexer
// definitions when the binary starts, which every albedo command would
// pay for.
type Highlighter struct {
	python, shell chroma.Lexer
}

// NewHighlighter returns a highlighter; its rules compile on first use.
func NewHighlighter() *Highlighter {
	return &Highlighter{
		python: chroma.MustNewLexer(&chroma.Config{Name: "Python", EnsureNL: true}, pythonRules),
		shell:  chroma.MustNewLexer(&chroma.Config{Name: "Shell", EnsureNL: true}, shellRules),
	}
}

// lexer returns the lexer of lang (a fenced block's info word), nil when
// lang is not highlighted.
func (h *Highlighter) lexer(lang string) chroma.Lexer {
	switch strings.ToLower(lang) {
	case "python", "py", "python3", "py3":
		return h.python
	case "bash", "sh", "shell", "zsh", "console", "shell-session":
		return h.shell
	}
	return nil
}

// Tokens splits code in lang into tokens, runs of one class merged; code
// in a language not highlighted is one Plain token. The tokens' texts
// add up to code.
func (h *Highlighter) Tokens(code, lang string) []Token {
	lexer := h.lexer(lang)
	if lexer == nil {
		return []Token{{Text: code}}
	}
	it, err := lexer.Tokenise(nil, code)
	if err != nil {
		return []Token{{Text: code}}
	}
	var out []Token
	for tok := it(); tok != chroma.EOF; tok = it() {
		class := Classify(tok.Type)
		if n := len(out); n > 0 && out[n-1].Class == class {
			out[n-1].Text += tok.Value
			continue
		}
		out = append(out, Token{Text: tok.Value, Class: class})
	}
	// EnsureNL adds a newline the code may not have had.
	if !strings.HasSuffix(code, "\n") && len(out) > 0 {
		last := &out[len(out)-1]
		last.Text = strings.TrimSuffix(last.Text, "\n")
		if last.Text == "" {
			out = out[:len(out)-1]
		}
	}
	return out
}

// Classify returns the class of a chroma token type.
func Classify(t chroma.TokenType) Class {
	switch {
	case t.InSubCategory(chroma.Comment) || t.InCategory(chroma.Comment):
		return Comment
	case t == chroma.KeywordConstant:
		return Constant
	case t.InCategory(chroma.Keyword):
		return Keyword
	case t.InSubCategory(chroma.LiteralString):
		return String
	case t.InSubCategory(chroma.LiteralNumber):
		return Number
	case t == chroma.NameFunction || t == chroma.NameClass:
		return Function
	case t == chroma.NameBuiltin || t == chroma.NameDecorator || t == chroma.NameAttribute:
		return Builtin
	case t == chroma.NameVariable:
		return Constant
	case t == chroma.GenericPrompt:
		return Comment
	case t.InCategory(chroma.Operator):
		return Operator
	}
	return Plain
}

// pythonRules are the rules of the Python lexer.
func pythonRules() chroma.Rules {
	str := func(q string) string {
		return `(?i)(?:[rbuf]|rb|br|fr|rf)?` + q + `(?:\\.|[^\\` + q[:1] + `\n])*` + q
	}
	return chroma.Rules{
		"root": {
			{Pattern: `\n`, Type: chroma.Text},
			{Pattern: `[^\S\n]+`, Type: chroma.Text},
			{Pattern: `#[^\n]*`, Type: chroma.CommentSingle},
			{Pattern: `(?is)(?:[rbuf]|rb|br|fr|rf)?"""(?:\\.|[^\\])*?(?:"""|\z)`, Type: chroma.LiteralStringDoc},
			{Pattern: `(?is)(?:[rbuf]|rb|br|fr|rf)?'''(?:\\.|[^\\])*?(?:'''|\z)`, Type: chroma.LiteralStringDoc},
			{Pattern: str(`"`), Type: chroma.LiteralString},
			{Pattern: str(`'`), Type: chroma.LiteralString},
			{Pattern: `@[\w.]+`, Type: chroma.NameDecorator},
			{Pattern: `\b(def|class)(\s+)([A-Za-z_]\w*)`, Type: chroma.ByGroups(chroma.Keyword, chroma.Text, chroma.NameFunction)},
			{Pattern: `\b(?:True|False|None)\b`, Type: chroma.KeywordConstant},
			{Pattern: `\b(?:and|as|assert|async|await|break|continue|del|elif|else|except|finally|for|from|global|if|import|in|is|lambda|nonlocal|not|or|pass|raise|return|try|while|with|yield|match|case)\b`, Type: chroma.Keyword},
			{Pattern: `\b(?:abs|all|any|bool|bytes|dict|dir|enumerate|filter|float|format|getattr|hasattr|int|isinstance|iter|len|list|map|max|min|next|object|open|print|range|repr|reversed|round|set|setattr|sorted|str|sum|super|tuple|type|zip|self)\b`, Type: chroma.NameBuiltin},
			{Pattern: `(?i)\b(?:0x[0-9a-f_]+|0b[01_]+|0o[0-7_]+|\d[\d_]*(?:\.[\d_]*)?(?:e[+-]?\d+)?j?)\b|\.\d[\d_]*(?:e[+-]?\d+)?j?\b`, Type: chroma.LiteralNumber},
			{Pattern: `[A-Za-z_]\w*`, Type: chroma.Name},
			{Pattern: `\*\*=?|//=?|->|:=|[-+*/%@&|^~<>=!]=?`, Type: chroma.Operator},
			{Pattern: `[()\[\]{},.:;]`, Type: chroma.Punctuation},
			{Pattern: `.`, Type: chroma.Text},
		},
	}
}

// shellRules are the rules of the shell lexer: comments, strings,
// variables, keywords, options and operators.
func shellRules() chroma.Rules {
	return chroma.Rules{
		"root": {
			{Pattern: `\n`, Type: chroma.Text},
			{Pattern: `[^\S\n]+`, Type: chroma.Text},
			{Pattern: `(^|(?<=\s))#[^\n]*`, Type: chroma.CommentSingle},
			{Pattern: `^\$(?=\s)`, Type: chroma.GenericPrompt},
			{Pattern: `'[^']*'?`, Type: chroma.LiteralStringSingle},
			{Pattern: `"(?:\\.|[^"\\])*"?`, Type: chroma.LiteralStringDouble},
			{Pattern: `\$\{[^}\n]*\}?|\$\(|\$[A-Za-z_]\w*|\$[0-9@*#?$!-]`, Type: chroma.NameVariable},
			{Pattern: `\b(?:if|then|else|elif|fi|for|in|do|done|while|until|case|esac|function|return|export|local|readonly|set|unset|source|exit)\b`, Type: chroma.Keyword},
			{Pattern: `(?<=\s)--?[A-Za-z0-9][\w-]*=?`, Type: chroma.NameAttribute},
			{Pattern: `\b\d+\b`, Type: chroma.LiteralNumber},
			{Pattern: `&&|\|\||[|;&<>]+|=`, Type: chroma.Operator},
			{Pattern: `[^\s$'"|;&<>=#]+`, Type: chroma.Text},
			{Pattern: `.`, Type: chroma.Text},
		},
	}
}
