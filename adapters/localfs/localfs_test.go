package localfs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want albedo.Folder
	}{
		{dir, albedo.FolderDir},
		{file, albedo.FolderNotDir},
		{filepath.Join(dir, "missing"), albedo.FolderMissing},
	}
	for _, tt := range tests {
		if got := (Workspaces{}).Folder(tt.path); got != tt.want {
			t.Errorf("Folder(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
