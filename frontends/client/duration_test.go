package client

import "testing"

func TestFormatDuration(t *testing.T) {
	for _, tt := range []struct {
		ms   int64
		want string
	}{
		{0, "0ms"}, {840, "840ms"}, {3240, "3.2s"}, {59_940, "59.9s"}, {125_000, "2m05s"}, {3_840_000, "1h04m"},
	} {
		if got := FormatDuration(tt.ms); got != tt.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", tt.ms, got, tt.want)
		}
	}
}
