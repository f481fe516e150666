package home

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	first, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); !errors.Is(err, ErrInUse) {
		t.Fatalf("second Lock = %v, want ErrInUse", err)
	}
	first.Close()
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after release = %v", err)
	}
	again.Close()
}

func TestReadConnection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ConnectionFile)
	if err := os.WriteFile(path, []byte(`{"pid":42,"port":7,"token":"t"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, %v", info.Mode(), err)
	}
	conn, err := ReadConnection(dir)
	if err != nil || conn != (Connection{PID: 42, Port: 7, Token: "t"}) {
		t.Fatalf("ReadConnection = %+v, %v", conn, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left %d files, want only %s", len(entries), ConnectionFile)
	}
}

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	if Alive(0) || Alive(-1) {
		t.Error("non-positive pids are alive")
	}
}

func TestReadExtensions(t *testing.T) {
	tests := []struct {
		name, content string
		wantErr       bool
		wantKeys      int
	}{
		{"missing", "", false, 0},
		{"catalog refresh off", `{"models": {"refreshHours": 0}}`, false, 1},
		{"not an object", `[1, 2]`, true, 0},
		{"broken", `{"models":`, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.content != "" {
				if err := os.WriteFile(filepath.Join(dir, ExtensionsFile), []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ext, err := ReadExtensions(dir)
			if (err != nil) != tt.wantErr || len(ext) != tt.wantKeys {
				t.Errorf("ReadExtensions = %v, %v", ext, err)
			}
			if err != nil && !strings.Contains(err.Error(), ExtensionsFile) {
				t.Errorf("error %v does not name the file", err)
			}
		})
	}
}
