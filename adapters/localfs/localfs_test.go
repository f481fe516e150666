package localfs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestFolder(t *testing.T) {
	root := t.TempDir()
	user := filepath.Join(root, "user")
	home := filepath.Join(user, ".albedo")
	ws := filepath.Join(user, "src", "project")
	for _, d := range []string{filepath.Join(home, "spool"), ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(ws, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(root, "alias")
	if err := os.Symlink(user, alias); err != nil {
		t.Fatal(err)
	}
	strict := Workspaces{Home: home, UserHome: user}
	tests := []struct {
		name string
		w    Workspaces
		path string
		want albedo.Folder
	}{
		{"a project folder", strict, ws, albedo.FolderDir},
		{"a file", strict, file, albedo.FolderNotDir},
		{"nothing", strict, filepath.Join(ws, "missing"), albedo.FolderMissing},
		{"/", strict, "/", albedo.FolderTooBroad},
		{"the user's home", strict, user, albedo.FolderTooBroad},
		{"the user's home through a link", strict, alias, albedo.FolderTooBroad},
		{"albedo's home", strict, home, albedo.FolderTooBroad},
		{"inside albedo's home", strict, filepath.Join(home, "spool"), albedo.FolderTooBroad},
		{"a folder holding albedo's home", Workspaces{Home: home, UserHome: ws}, root, albedo.FolderTooBroad},
		{"a sibling of albedo's home", strict, filepath.Join(user, "src"), albedo.FolderDir},
		{"/ when any is allowed", Workspaces{Home: home, UserHome: user, AllowAny: true}, "/", albedo.FolderDir},
		{"the user's home when any is allowed", Workspaces{Home: home, UserHome: user, AllowAny: true}, user, albedo.FolderDir},
	}
	for _, tt := range tests {
		if got := tt.w.Folder(tt.path); got != tt.want {
			t.Errorf("%s: Folder(%s) = %v, want %v", tt.name, tt.path, got, tt.want)
		}
	}
}
