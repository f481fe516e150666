package console

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/gdamore/tcell/v2"
)

// highlighter colours code with chroma's lexing engine. It knows Python,
// the language of albedo's cells, and the shell, the language of the
// commands answers show, through rules of its own: chroma's registry of
// every language (package lexers) parses 250 lexer definitions when the
// binary starts, which every albedo command would pay for.
type highlighter struct {
	python, shell chroma.Lexer
}

// newHighlighter returns a highlighter; its rules compile on first use.
func newHighlighter() *highlighter {
	return &highlighter{
		python: chroma.MustNewLexer(&chroma.Config{Name: "Python", EnsureNL: true}, pythonRules),
		shell:  chroma.MustNewLexer(&chroma.Config{Name: "Shell", EnsureNL: true}, shellRules),
	}
}

// lexer returns the lexer of lang (a fenced block's info word), nil when
// lang is not highlighted.
func (h *highlighter) lexer(lang string) chroma.Lexer {
	switch strings.ToLower(lang) {
	case "python", "py", "python3", "py3":
		return h.python
	case "bash", "sh", "shell", "zsh", "console", "shell-session":
		return h.shell
	}
	return nil
}

// lines splits code into rows of styled segments, coloured when lang is
// known and in base style otherwise. Tabs and control characters are made
// safe to draw.
func (h *highlighter) lines(code, lang string, th *theme, base tcell.Style) []line {
	code = sanitize(code)
	lexer := h.lexer(lang)
	if lexer == nil {
		var out []line
		for _, row := range strings.Split(code, "\n") {
			out = append(out, line{{row, base}})
		}
		return out
	}
	it, err := lexer.Tokenise(nil, code)
	if err != nil {
		return h.lines(code, "", th, base)
	}
	out := []line{nil}
	for tok := it(); tok != chroma.EOF; tok = it() {
		style := th.syntax(tok.Type, base)
		parts := strings.Split(tok.Value, "\n")
		for i, part := range parts {
			if i > 0 {
				out = append(out, nil)
			}
			if part == "" {
				continue
			}
			cur := &out[len(out)-1]
			if n := len(*cur); n > 0 && (*cur)[n-1].style == style {
				(*cur)[n-1].text += part
			} else {
				*cur = append(*cur, segment{part, style})
			}
		}
	}
	// EnsureNL adds a newline the code may not have had.
	if len(out) > 1 && len(out[len(out)-1]) == 0 && !strings.HasSuffix(code, "\n") {
		out = out[:len(out)-1]
	}
	return out
}

// syntax returns the style of a token type, on top of base.
func (th *theme) syntax(t chroma.TokenType, base tcell.Style) tcell.Style {
	switch {
	case t.InSubCategory(chroma.Comment) || t.InCategory(chroma.Comment):
		return th.synComment
	case t == chroma.KeywordConstant:
		return th.synConstant
	case t.InCategory(chroma.Keyword):
		return th.synKeyword
	case t.InSubCategory(chroma.LiteralString):
		return th.synString
	case t.InSubCategory(chroma.LiteralNumber):
		return th.synNumber
	case t == chroma.NameFunction || t == chroma.NameClass:
		return th.synFunction
	case t == chroma.NameBuiltin || t == chroma.NameDecorator || t == chroma.NameAttribute:
		return th.synBuiltin
	case t == chroma.NameVariable:
		return th.synConstant
	case t == chroma.GenericPrompt:
		return th.synComment
	case t.InCategory(chroma.Operator):
		return th.synOperator
	}
	return base
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
