package gitshadow

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A workspace that is a git repository lends its first snapshot what its
// own index knows: the shadow's first index is a copy of the repository's
// (read, never written), so that the files it has recorded are neither
// read nor stored again, and the first snapshot of a large checkout costs
// what a later one does. The tree then names blobs that only the user's
// objects hold. The shadow never depends on them lasting: each snapshot
// copies into the shadow's own objects, from the user's (readable to that
// one command only, through GIT_ALTERNATE_OBJECT_DIRECTORIES, never
// through an alternates file), the blobs of every path that changed since
// the last snapshot, on both sides of the change. A restore writes only
// paths that changed after the snapshot it restores, so every blob it can
// need has been copied before the user's gc could take it; the user's
// objects stay readable to a restore as a last resort.

// borrowedName marks a shadow whose first index was the repository's.
const borrowedName = "borrowed"

// userObjects returns the object folder of the workspace's own repository,
// "" when it has none (not a repository, or a linked worktree whose .git
// is a file).
func (sh *shadow) userObjects() string {
	p := filepath.Join(sh.workspace, ".git", "objects")
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return p
	}
	return ""
}

// borrows says whether the shadow's snapshots may name the user's blobs.
func (sh *shadow) borrows() bool {
	_, err := os.Stat(filepath.Join(sh.dir, borrowedName))
	return err == nil
}

// seed makes the repository's index the shadow's first one; it does
// nothing when there is none or git cannot read the copy (a split index,
// say), and the first snapshot then records every file itself.
func (sh *shadow) seed(ctx context.Context) {
	if sh.userObjects() == "" {
		return
	}
	b, err := os.ReadFile(filepath.Join(sh.workspace, ".git", "index"))
	if err != nil {
		return
	}
	index := filepath.Join(sh.dir, "index")
	if err := os.WriteFile(index, b, 0o600); err != nil {
		os.Remove(index)
		return
	}
	if _, err := sh.run(ctx, nil, "ls-files", "-z", "--stage"); err != nil {
		os.Remove(index)
		return
	}
	if err := os.WriteFile(filepath.Join(sh.dir, borrowedName), nil, 0o600); err != nil {
		os.Remove(index)
	}
}

// zeroID is the object id git writes for "no object".
const zeroID = "0000000000000000000000000000000000000000"

// keepChanged copies into the shadow's own objects the blobs, on both
// sides, of the paths that differ between the trees from and to.
func (sh *shadow) keepChanged(ctx context.Context, from, to string) error {
	if from == "" || from == to || !sh.borrows() {
		return nil
	}
	out, err := sh.run(ctx, nil, "diff-tree", "-r", "-z", "--raw", "--no-renames", from, to)
	if err != nil {
		return fmt.Errorf("find the changed files of %s: %w", sh.workspace, err)
	}
	var ids bytes.Buffer
	fields := splitNul(out)
	for i := 0; i+1 < len(fields); i += 2 {
		// ":OLDMODE NEWMODE OLDID NEWID STATUS", then the path.
		f := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(f) < 4 {
			continue
		}
		for side, id := range []string{f[2], f[3]} {
			if id != zeroID && f[side] != "160000" {
				ids.WriteString(id + "\n")
			}
		}
	}
	if ids.Len() == 0 {
		return nil
	}
	pack, err := sh.runBorrowing(ctx, sh.dir+"/index", ids.Bytes(), "pack-objects", "-q", "--stdout", "--window=0")
	if err != nil {
		return fmt.Errorf("keep the changed files of %s: %w", sh.workspace, err)
	}
	if _, err := sh.run(ctx, pack, "unpack-objects", "-q"); err != nil {
		return fmt.Errorf("keep the changed files of %s: %w", sh.workspace, err)
	}
	return nil
}
