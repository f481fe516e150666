package compaction

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLongTextsAreCutOnACharacterBoundary(t *testing.T) {
	// "é" is two bytes: a cut at an odd byte count falls inside one.
	odd := "x" + strings.Repeat("é", 3000)
	for _, tc := range []struct {
		name, in, want string
		cut            func(string) string
	}{
		{"a quoted message that fits", "short", "short", shorten},
		{"a quoted message cut inside a character", odd, "x" + strings.Repeat("é", (maxQuoted-2)/2) + " […]", shorten},
		{"a rendered text that fits", "short", "short", cutText},
		{"a rendered text cut inside a character", odd, "x" + strings.Repeat("é", (maxRenderedText-2)/2) + "\n[… 2002 more bytes cut]", cutText},
	} {
		got := tc.cut(tc.in)
		if got != tc.want {
			t.Errorf("%s: %d bytes ending %q; want %d bytes ending %q", tc.name, len(got), got[max(len(got)-12, 0):], len(tc.want), tc.want[max(len(tc.want)-12, 0):])
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: not UTF-8", tc.name)
		}
	}
}
