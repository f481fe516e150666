package clip

import (
	"strings"
	"testing"
)

func TestBuffer(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{name: "empty", limit: 10, want: ""},
		{name: "fits", limit: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "exactly full", limit: 6, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "head and tail", limit: 6, writes: []string{"abcdefghij"}, want: "abc\n[... 4 bytes cut ...]\nhij"},
		{name: "many writes", limit: 4, writes: []string{"a", "b", "c", "d", "e", "f", "g"}, want: "ab\n[... 3 bytes cut ...]\nfg"},
		{name: "tail from a long write", limit: 4, writes: []string{"ab", strings.Repeat("x", 100) + "yz"}, want: "ab\n[... 100 bytes cut ...]\nyz"},
		{name: "runes are not split", limit: 6, writes: []string{"ééééé"}, want: "é\n[... 6 bytes cut ...]\né"},
		{name: "invalid bytes replaced", limit: 10, writes: []string{"a\xffb"}, want: "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(tt.limit)
			for _, w := range tt.writes {
				b.Write([]byte(w))
			}
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	if got := Text("short", 10); got != "short" {
		t.Errorf("Text kept %q", got)
	}
	if got, want := Text("abcdefghij", 4), "ab\n[... 6 bytes cut ...]\nij"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}
