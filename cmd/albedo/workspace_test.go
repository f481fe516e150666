package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWorkspaceDir(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ dir, want string }{
		{"", wd},
		{"sub/dir", filepath.Join(wd, "sub/dir")},
		{"/abs/../path", "/path"},
	}
	for _, tt := range tests {
		got, err := workspaceDir(tt.dir)
		if err != nil || got != tt.want {
			t.Errorf("workspaceDir(%q) = %q, %v; want %q", tt.dir, got, err, tt.want)
		}
	}
}
