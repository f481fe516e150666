package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/albedo-agent/albedo/adapters/landlock"
)

func TestSandboxHelperPrefersTheSmallBinaryBesideAlbedo(t *testing.T) {
	tests := []struct {
		name  string
		small os.FileMode // 0: no albedo-sandbox beside albedo
		want  func(dir string) []string
	}{
		{"beside and executable", 0o755, func(dir string) []string { return []string{filepath.Join(dir, "albedo-sandbox")} }},
		{"beside but not executable", 0o644, func(dir string) []string { return []string{filepath.Join(dir, "albedo"), landlock.HelperCommand} }},
		{"missing", 0, func(dir string) []string { return []string{filepath.Join(dir, "albedo"), landlock.HelperCommand} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.small != 0 {
				if err := os.WriteFile(filepath.Join(dir, "albedo-sandbox"), nil, tt.small); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := sandboxHelper(filepath.Join(dir, "albedo")), tt.want(dir); !slices.Equal(got, want) {
				t.Errorf("sandboxHelper = %q, want %q", got, want)
			}
		})
	}
}
