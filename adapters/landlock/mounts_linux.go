//go:build linux

package landlock

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// setUpMounts shapes the kernel's own mount namespace, when the
// namespace's first process started it in one (superviseNamespace says so
// in the environment), before Landlock, which forbids mounting. Mounts
// there are private (Go makes them so when it unshares the namespace):
// nothing of this reaches the machine's. It mounts a /proc of the PID
// namespace alone (ps, pgrep and kill agree on pids; no process of the
// machine outside it shows), a tmpfs of its own on the kernel's TMPDIR
// (no other kernel sees what it writes there; TempMiB bounds it) and an
// empty read-only mask over each hidden path (see maskHidden). A failure
// leaves what was there: Landlock still refuses to read the hidden paths
// where the machine has it. It reports whether the kernel has namespaces
// of its own (mount and PID).
func setUpMounts(s Spec) bool {
	if os.Getenv(ownProcVariable) == "" {
		return false
	}
	_ = os.Unsetenv(ownProcVariable)
	_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	if s.Temp != "" {
		_ = mountTemp(s.Temp, s.TempMiB)
	}
	_ = maskHidden(s.Hidden)
	return true
}

// mountTemp mounts a tmpfs of at most sizeMiB (no bound for 0) on dir,
// readable by its owner alone: the kernel's TMPDIR. A write past the
// bound fails with ENOSPC ("No space left on device").
func mountTemp(dir string, sizeMiB int) error {
	options := fmt.Sprintf("mode=0700,size=%dm", sizeMiB)
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, options); err != nil {
		return fmt.Errorf("mounting the kernel's temporary folder: %w", err)
	}
	return nil
}

// maskHidden puts an empty, read-only folder over each hidden folder and
// an empty, read-only file over each hidden file, so that in the kernel
// the paths lead to nothing of theirs: not their contents, nor their
// modes, owners, times or extended attributes, which Landlock does not
// guard (chmod, chown, utime and setxattr on a read-only mount fail with
// EROFS). A folder's mask also hides what appears in it later. The masks
// come from one small detached tmpfs (fsopen, Linux 5.2), each a bind of
// its empty folder or empty file moved onto the path; without that API,
// folders get a read-only tmpfs each and files stay as they are. Missing
// paths are left to Landlock.
func maskHidden(hidden []string) error {
	var dirs, files []string
	for _, h := range hidden {
		info, err := os.Lstat(h)
		switch {
		case err != nil:
		case info.IsDir():
			dirs = append(dirs, h)
		default:
			files = append(files, h)
		}
	}
	if len(dirs)+len(files) == 0 {
		return nil
	}
	source, err := emptyTree()
	if err != nil {
		for _, d := range dirs {
			_ = unix.Mount("tmpfs", d, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,nr_inodes=2,mode=0555")
		}
		return err
	}
	defer unix.Close(source)
	var failed []error
	for _, d := range dirs {
		failed = append(failed, bindOnto(source, "folder", d))
	}
	for _, f := range files {
		failed = append(failed, bindOnto(source, "file", f))
	}
	return errors.Join(failed...)
}

// emptyTree returns a detached, read-only tmpfs holding an empty folder
// "folder" and an empty file "file", both read-only. Its root is writable
// by its owner until then: the helper need not be root (in a user
// namespace it has no right over modes).
func emptyTree() (int, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("opening a tmpfs for the masks: %w", err)
	}
	defer unix.Close(fs)
	for key, value := range map[string]string{"size": "4k", "nr_inodes": "4", "mode": "0755"} {
		if err := unix.FsconfigSetString(fs, key, value); err != nil {
			return -1, fmt.Errorf("configuring the masks' tmpfs (%s): %w", key, err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("making the masks' tmpfs: %w", err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("mounting the masks' tmpfs: %w", err)
	}
	made := func() error {
		if err := unix.Mkdirat(mnt, "folder", 0o555); err != nil {
			return err
		}
		fd, err := unix.Openat(mnt, "file", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o444)
		if err != nil {
			return err
		}
		unix.Close(fd)
		return unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	}()
	if made != nil {
		unix.Close(mnt)
		return -1, fmt.Errorf("filling the masks' tmpfs: %w", made)
	}
	return mnt, nil
}

// bindOnto mounts a read-only bind of name, in the detached tree source,
// on target (a trailing symbolic link is not followed).
func bindOnto(source int, name, target string) error {
	tree, err := unix.OpenTree(source, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("cloning the mask for %s: %w", target, err)
	}
	defer unix.Close(tree)
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("making the mask for %s read-only: %w", target, err)
	}
	if err := unix.MoveMount(tree, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("masking %s: %w", target, err)
	}
	return nil
}
