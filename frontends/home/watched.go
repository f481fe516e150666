package home

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// WatchedExtensions reads extensions.json again only when the file
// changed (its size or modification time) since it was last read whole,
// so that asking for the settings before every model request costs a
// stat. A file that could not be read or decoded is read again the next
// time: it may have been caught half-written. It is safe for concurrent
// use.
type WatchedExtensions struct {
	dir, path string

	mu      sync.Mutex
	read    bool
	modTime time.Time
	size    int64
	ext     Extensions
}

// WatchExtensions returns the extensions.json of the home dir. The file
// need not exist.
func WatchExtensions(dir string) *WatchedExtensions {
	return &WatchedExtensions{dir: dir, path: filepath.Join(dir, ExtensionsFile)}
}

// Read returns the settings the file holds now, as ReadExtensions reads
// them.
func (w *WatchedExtensions) Read() (Extensions, error) {
	info, err := os.Stat(w.path)
	w.mu.Lock()
	defer w.mu.Unlock()
	if errors.Is(err, fs.ErrNotExist) {
		w.read = false
		return Extensions{}, nil
	}
	if err == nil && w.read && info.ModTime().Equal(w.modTime) && info.Size() == w.size {
		return w.ext, nil
	}
	w.read = false
	ext, rerr := ReadExtensions(w.dir)
	if rerr != nil {
		return nil, rerr
	}
	if err == nil {
		w.read, w.modTime, w.size, w.ext = true, info.ModTime(), info.Size(), ext
	}
	return ext, nil
}
