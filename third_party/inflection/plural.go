// Package inflection is albedo's own implementation of the one function bun
// takes from the module of this path: Plural, which bun uses to name the
// table of a model that does not name its own.
//
// albedo's go.mod replaces that module with this folder. The module it
// replaces compiles its rules as regular expressions when the program
// starts, which every run of the albedo binary paid for (about 3 ms, most of
// it spent before the CLI prints anything), although albedo names all of
// its tables. This package keeps its rules in switch statements: nothing
// runs until Plural is called.
//
// The replacement applies only when albedo is the main module; a program
// that embeds albedo gets the module its own go.mod chooses.
package inflection

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Plural returns the plural of an English noun. For a name of several
// words (snake_case, kebab-case, CamelCase or spaced), only the last word
// changes; its letter case is kept.
func Plural(s string) string {
	head, word := lastWord(s)
	if word == "" {
		return s
	}
	return head + withCaseOf(word, pluralOf(strings.ToLower(word)))
}

// lastWord splits s before its last word: the trailing run of letters,
// starting at a lower-to-upper case boundary when there is one.
func lastWord(s string) (head, word string) {
	start := len(s)
	lower := false
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:start])
		if !unicode.IsLetter(r) {
			break
		}
		if unicode.IsUpper(r) && lower {
			start -= size // the capital that begins a CamelCase word
			break
		}
		lower = lower || !unicode.IsUpper(r)
		start -= size
	}
	return s[:start], s[start:]
}

// withCaseOf writes plural in the case of word: all capitals, a capital
// first, or as it is.
func withCaseOf(word, plural string) string {
	first, _ := utf8.DecodeRuneInString(word)
	switch {
	case utf8.RuneCountInString(word) > 1 && strings.ToUpper(word) == word:
		return strings.ToUpper(plural)
	case unicode.IsUpper(first):
		r, size := utf8.DecodeRuneInString(plural)
		return string(unicode.ToUpper(r)) + plural[size:]
	}
	return plural
}

// pluralOf returns the plural of a lower-case word.
func pluralOf(w string) string {
	if invariable(w) {
		return w
	}
	if p, ok := irregular(w); ok {
		return p
	}
	n := len(w)
	switch {
	case hasAnySuffix(w, "ss", "sh", "ch", "x", "z", "us"):
		return w + "es"
	case strings.HasSuffix(w, "is") && n > 3:
		return w[:n-2] + "es" // analysis, crisis
	case strings.HasSuffix(w, "s"):
		return w // taken to be plural already
	case strings.HasSuffix(w, "y") && n > 1 && !isVowel(w[n-2]):
		return w[:n-1] + "ies"
	}
	return w + "s"
}

// hasAnySuffix says whether w ends with one of the suffixes.
func hasAnySuffix(w string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// isVowel says whether b is a lower-case vowel.
func isVowel(b byte) bool {
	return strings.IndexByte("aeiou", b) >= 0
}

// invariable says whether w is the same in the plural: uncountable nouns,
// nouns whose plural is the singular, and irregular plurals themselves.
func invariable(w string) bool {
	switch w {
	case "advice", "aircraft", "data", "deer", "equipment", "feedback",
		"fish", "information", "jeans", "media", "metadata", "money",
		"moose", "news", "offspring", "police", "rice", "series", "sheep",
		"software", "species", "hardware", "traffic",
		"children", "feet", "geese", "men", "mice", "people", "teeth", "women":
		return true
	}
	return false
}

// irregular returns the plural of a noun the suffix rules get wrong.
func irregular(w string) (string, bool) {
	switch w {
	case "child":
		return "children", true
	case "person":
		return "people", true
	case "man":
		return "men", true
	case "woman":
		return "women", true
	case "mouse":
		return "mice", true
	case "goose":
		return "geese", true
	case "foot":
		return "feet", true
	case "tooth":
		return "teeth", true
	case "ox":
		return "oxen", true
	case "quiz":
		return "quizzes", true
	case "datum":
		return "data", true
	case "medium":
		return "media", true
	case "criterion":
		return "criteria", true
	case "phenomenon":
		return "phenomena", true
	case "index":
		return "indices", true
	case "matrix":
		return "matrices", true
	case "vertex":
		return "vertices", true
	case "appendix":
		return "appendices", true
	case "radius":
		return "radii", true
	case "cactus":
		return "cacti", true
	case "fungus":
		return "fungi", true
	case "knife", "life", "wife":
		return w[:len(w)-2] + "ves", true
	case "calf", "elf", "half", "leaf", "loaf", "self", "shelf", "thief", "wolf":
		return w[:len(w)-1] + "ves", true
	case "echo", "embargo", "hero", "potato", "tomato", "torpedo", "veto":
		return w + "es", true
	}
	return "", false
}
