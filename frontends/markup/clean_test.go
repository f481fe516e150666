package markup

import "testing"

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a\tb", "a    b"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b]0;title\x07x", "x"},
		{"a\r\nb\rc", "a\nb\nc"},
		{"bell\x07", "bell"},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
