package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/albedo-agent/albedo/frontends/home"
)

// ErrHomeInUse says another process, such as a running daemon, serves the
// home. Reach that daemon with frontends/client, or use another home.
var ErrHomeInUse = errors.New("another albedo process serves this home")

// lockHome takes the home's exclusive lock, the one the daemon takes, and
// holds it until the returned file is closed.
func lockHome(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, home.LockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the lock of home %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("open home %s: %w", dir, ErrHomeInUse)
		}
		return nil, fmt.Errorf("lock home %s: %w", dir, err)
	}
	return f, nil
}
