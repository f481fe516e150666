package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite specifies what a write leaves behind: the new contents and
// mode on success, the old file on failure, and never a temporary file.
func TestWrite(t *testing.T) {
	tests := []struct {
		name string
		// before prepares the folder; path is the file to write.
		before   func(t *testing.T, dir string) (path string)
		mode     os.FileMode
		wantErr  bool
		wantData string // the contents of path after the write
	}{
		{
			name:     "a new file in a missing folder",
			before:   func(t *testing.T, dir string) string { return filepath.Join(dir, "a", "b", "daemon.json") },
			mode:     0o600,
			wantData: "new",
		},
		{
			name: "an old file replaced, taking the given mode",
			before: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "config.json")
				mustWrite(t, path, "old", 0o644)
				return path
			},
			mode:     0o600,
			wantData: "new",
		},
		{
			name: "a failed write leaves the old contents",
			before: func(t *testing.T, dir string) string {
				// A folder with a file in it cannot be renamed over.
				path := filepath.Join(dir, "catalog.json")
				mustWrite(t, filepath.Join(path, "kept"), "old", 0o600)
				return path
			},
			mode:    0o600,
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.before(t, dir)
			err := Write(path, []byte("new"), tt.mode)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Write = %v, want an error: %v", err, tt.wantErr)
			}
			if tt.wantErr {
				if data, err := os.ReadFile(filepath.Join(path, "kept")); err != nil || string(data) != "old" {
					t.Errorf("after a failed write the old file holds %q, %v", data, err)
				}
			} else {
				data, err := os.ReadFile(path)
				if err != nil || string(data) != tt.wantData {
					t.Errorf("%s holds %q, %v; want %q", path, data, err, tt.wantData)
				}
				if info, err := os.Stat(path); err != nil || info.Mode().Perm() != tt.mode {
					t.Errorf("%s has mode %v, %v; want %v", path, info.Mode().Perm(), err, tt.mode)
				}
			}
			entries, err := os.ReadDir(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name() != filepath.Base(path) {
					t.Errorf("%s left %s beside the file", tt.name, e.Name())
				}
			}
		})
	}
}

func mustWrite(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}
