package console

import (
	"reflect"
	"testing"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{"fits", "hello world", 20, []string{"hello world"}},
		{"empty", "", 5, []string{""}},
		{"at spaces", "hello big world", 9, []string{"hello big", "world"}},
		{"space at the edge", "abcd efgh", 4, []string{"abcd", "efgh"}},
		{"long word breaks", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"newlines break", "a\n\nb", 10, []string{"a", "", "b"}},
		{"wide runes", "日本語の文", 4, []string{"日本", "語の", "文"}},
		{"trailing spaces go", "ab   ", 3, []string{"ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrap(tt.text, tt.width)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("wrap(%q, %d) = %q, want %q", tt.text, tt.width, got, tt.want)
			}
			for _, row := range got {
				if width(row) > tt.width {
					t.Errorf("row %q is wider than %d", row, tt.width)
				}
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		w    int
		want string
	}{
		{"short", 10, "short"},
		{"a longer text", 6, "a lon…"},
		{"日本語", 4, "日…"},
		{"x", 0, "…"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.w); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
		}
	}
}
