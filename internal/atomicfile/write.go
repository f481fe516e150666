// Package atomicfile replaces a file's contents so that a reader, or a
// crash, sees the old contents or the new, never a part: the daemon's
// connection file, the config file and the model catalog are written with
// it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data and mode, creating its folder
// (readable by its owner only) when missing. The data goes to a temporary
// file beside path, which is synced and renamed over it; on any failure
// path is left as it was and the temporary file is removed.
func Write(path string, data []byte, mode os.FileMode) error {
	if err := write(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func write(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	err = tmp.Chmod(mode)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return err
	}
	// The rename itself lasts once the folder is synced; not every system
	// can sync a folder, so a failure there is no failure of the write.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
