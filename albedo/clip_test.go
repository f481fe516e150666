package albedo_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

func TestClipMiddleKeepsTheHeadAndTheTail(t *testing.T) {
	if got := albedo.ClipMiddle("short", 10, "hint"); got != "short" {
		t.Errorf("a text that fits was changed: %q", got)
	}
	got := albedo.ClipMiddle(strings.Repeat("a", 50)+strings.Repeat("é", 50), 40, "call it from Python for all of it")
	if !strings.HasPrefix(got, strings.Repeat("a", 20)+"\n[... ") || !strings.HasSuffix(got, " ...]\n"+strings.Repeat("é", 10)) {
		t.Errorf("ClipMiddle kept %q; want 20 bytes of head and 20 of tail", got)
	}
	if !strings.Contains(got, "[... 110 bytes cut; call it from Python for all of it ...]") {
		t.Errorf("ClipMiddle's marker = %q", got)
	}
	odd := albedo.ClipMiddle(strings.Repeat("é", 50), 41, "")
	if !strings.Contains(odd, "bytes cut ...]") || !utf8.ValidString(odd) {
		t.Errorf("ClipMiddle cut a character: %q", odd)
	}
}
