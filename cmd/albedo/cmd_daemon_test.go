package main

import (
	"slices"
	"testing"
)

func TestAllowedHostsReadsACommaSeparatedList(t *testing.T) {
	tests := []struct {
		env  string
		want []string
	}{
		{"", nil},
		{"localhost:9000", []string{"localhost:9000"}},
		{" localhost:9000 , albedo.example.internal,,", []string{"localhost:9000", "albedo.example.internal"}},
	}
	for _, tt := range tests {
		if got := allowedHosts(tt.env); !slices.Equal(got, tt.want) {
			t.Errorf("allowedHosts(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
