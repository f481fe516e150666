package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/albedo-agent/albedo/frontends/home"
)

// errLocked says another daemon holds the home's lock.
var errLocked = errors.New("another albedo daemon serves this home")

// lockHome takes the home's exclusive lock, held until the file closes.
func lockHome(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, home.LockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, fmt.Errorf("lock home: %w", err)
	}
	return f, nil
}
