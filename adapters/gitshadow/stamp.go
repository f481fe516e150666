package gitshadow

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// recentMargin is how recent a file's or folder's change time may be for
// a stamp to be taken: one written within it of the walk may be written
// again within the file system's timestamp granularity, keeping its
// times, so a stamp that saw it could miss that second write.
const recentMargin = time.Second

// stamp is what lstat says of every file and folder of a workspace
// (path, type and mode, size, inode, modification and change times),
// summed. Two equal stamps, neither with a change within recentMargin of
// its walk, mean that nothing was created, written, removed, renamed or
// had its mode changed in between: the snapshot taken after the first
// still holds. The walk looks at more than a snapshot records (ignored
// files too): a change there costs an ordinary snapshot, never a missed
// one.
type stamp [sha256.Size]byte

// errNoStamp says that a walk gave no stamp: a change was too recent, the
// workspace has more entries than a stamp covers, or one could not be
// read.
var errNoStamp = errors.New("no stamp")

// stampOf walks the workspace (all but .git folders and the shadows'
// own folder) at now and sums what lstat says of each entry, plus the
// repository's info/exclude, which the snapshot reads. It fails with
// errNoStamp past maxEntries entries or on a change within recentMargin.
func (sh *shadow) stampOf(now time.Time, maxEntries int) (stamp, error) {
	h := sha256.New()
	recent := now.Add(-recentMargin).UnixNano()
	skip := ""
	if rel, ok := sh.relative(filepath.Dir(sh.dir)); ok && filepath.IsAbs(filepath.Dir(sh.dir)) {
		skip = filepath.Join(sh.workspace, filepath.FromSlash(rel))
	}
	var buf [8 * 7]byte
	add := func(p string, fi fs.FileInfo) error {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return errNoStamp
		}
		if st.Mtim.Nano() >= recent || st.Ctim.Nano() >= recent {
			return errNoStamp
		}
		h.Write([]byte(p))
		for i, v := range []int64{int64(st.Mode), st.Size, int64(st.Ino), int64(st.Dev), st.Mtim.Nano(), st.Ctim.Nano(), 0} {
			binary.LittleEndian.PutUint64(buf[8*i:], uint64(v))
		}
		h.Write(buf[:])
		return nil
	}
	entries := 0
	err := filepath.WalkDir(sh.workspace, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != sh.workspace && (d.Name() == ".git" || p == skip) {
			return filepath.SkipDir
		}
		if entries++; entries > maxEntries {
			return errNoStamp
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return add(p, fi)
	})
	if err != nil {
		return stamp{}, errNoStamp
	}
	exclude := filepath.Join(sh.workspace, ".git", "info", "exclude")
	if fi, err := os.Lstat(exclude); err == nil {
		if err := add(exclude, fi); err != nil {
			return stamp{}, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return stamp{}, errNoStamp
	}
	var s stamp
	h.Sum(s[:0])
	return s, nil
}
