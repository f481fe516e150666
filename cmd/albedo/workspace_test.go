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

func TestPlainAlbedoStartsNoSessionInTheFolderHoldingIt(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Dir(exe)
	tests := []struct {
		dir  string
		want bool
	}{
		{bin, true},
		{filepath.Dir(bin), true},
		{t.TempDir(), false},
		{filepath.Join(bin, "nowhere"), false},
	}
	for _, tt := range tests {
		if got := holdsRunningAlbedo(tt.dir); got != tt.want {
			t.Errorf("holdsRunningAlbedo(%q) = %v, want %v (albedo runs from %s)", tt.dir, got, tt.want, exe)
		}
	}
}
