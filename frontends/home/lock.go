package home

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrInUse says another process, such as a running daemon, holds the
// home's lock.
var ErrInUse = errors.New("another albedo process serves this home")

// Lock takes the home's exclusive lock and holds it until the returned
// file is closed. Only one process may serve a home at a time; a second
// gets an error wrapping ErrInUse.
func Lock(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the lock of home %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock home %s: %w", dir, ErrInUse)
		}
		return nil, fmt.Errorf("lock home %s: %w", dir, err)
	}
	return f, nil
}
