package console

import (
	"cmp"
	"regexp"
	"strings"
	"testing"
)

// untagged strips tview colour tags.
func untagged(s string) string { return regexp.MustCompile(`\[[^\[\]]*\]`).ReplaceAllString(s, "") }

func TestKeyBarKeepsEveryKey(t *testing.T) {
	hints := []keyHint{{"Enter send", ""}, {"Alt-Enter/Ctrl-J newline", "^J newline"}, {"Ctrl-D detach", "^D detach"}}
	tests := []struct {
		name  string
		width int
		want  []string
	}{
		{"wide: the long forms on one row", 80, []string{" Enter send · Alt-Enter/Ctrl-J newline · Ctrl-D detach"}},
		{"any width: the long forms", 0, []string{" Enter send · Alt-Enter/Ctrl-J newline · Ctrl-D detach"}},
		{"narrow: the short forms", 40, []string{" Enter send  ^J newline  ^D detach"}},
		{"narrower: a second row", 30, []string{" Enter send  ^J newline", " ^D detach"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range keyBar(hints, tt.width) {
				got = append(got, untagged(r))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("keyBar(%d) = %q, want %q", tt.width, got, tt.want)
			}
		})
	}
}

func TestTheKeyBarsLoseNoKeyAtEightyColumns(t *testing.T) {
	tests := []struct {
		name  string
		hints []keyHint
		rows  int
	}{
		{"session", sessionKeys(), 1},
		{"picker", pickerKeys(), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := keyBar(tt.hints, 80)
			if len(rows) != tt.rows {
				t.Errorf("the key bar takes %d rows at 80 columns, want %d: %q", len(rows), tt.rows, rows)
			}
			text := ""
			for _, r := range rows {
				if n := width(untagged(r)); n > 80 {
					t.Errorf("a row is %d cells wide: %q", n, untagged(r))
				}
				text += untagged(r) + "\n"
			}
			for _, h := range tt.hints {
				if short := cmp.Or(h.short, h.long); !strings.Contains(text, short) {
					t.Errorf("the key bar lost %q:\n%s", short, text)
				}
			}
		})
	}
}
