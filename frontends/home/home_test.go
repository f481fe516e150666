package home

import (
	"errors"
	"os"
	"path/filepath"
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

func TestWriteFileAtomicAndReadConnection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ConnectionFile)
	if err := WriteFileAtomic(path, []byte(`{"pid":42,"port":7,"token":"t"}`), 0o600); err != nil {
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
