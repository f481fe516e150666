package gitshadow

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// listName is the file that lists a shadow's snapshots, oldest first: a
// tree and the Unix time it was taken, a line each (a tree taken again is
// listed again). A snapshot not in the list was pruned (see prune.go).
const listName = "snapshots"

// listed returns the shadow's snapshots with the last time each was
// taken, read once per process and kept up to date by keep and prune.
func (sh *shadow) listed() map[string]int64 {
	if sh.list != nil {
		return sh.list
	}
	sh.list = map[string]int64{}
	b, err := os.ReadFile(filepath.Join(sh.dir, listName))
	if err != nil {
		return sh.list
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var at int64
		if len(f) > 1 {
			at, _ = strconv.ParseInt(f[1], 10, 64)
		}
		sh.list[f[0]] = max(sh.list[f[0]], at)
		sh.newest = f[0]
	}
	return sh.list
}

// previous returns the tree of the shadow's last snapshot, "" before the
// first.
func (sh *shadow) previous() string {
	if sh.last != "" {
		return sh.last
	}
	sh.listed()
	return sh.newest
}

// keep adds tree, taken at unix, to the list of the shadow's snapshots
// unless it was the last one added.
func (sh *shadow) keep(tree string, unix int64) error {
	if tree == sh.last {
		return nil
	}
	list := sh.listed()
	f, err := os.OpenFile(filepath.Join(sh.dir, listName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("keep snapshot %s of %s: %w", tree, sh.workspace, err)
	}
	_, err = fmt.Fprintf(f, "%s %d\n", tree, unix)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("keep snapshot %s of %s: %w", tree, sh.workspace, err)
	}
	list[tree] = unix
	sh.newest = tree
	return nil
}

// kept fails, wrapping albedo.ErrSnapshotPruned, when a snapshot is not in
// the shadow's list.
func (sh *shadow) kept(snapshots ...string) error {
	list := sh.listed()
	for _, id := range snapshots {
		if _, ok := list[id]; !ok {
			return fmt.Errorf("snapshot %s of %s: %w", id, sh.workspace, albedo.ErrSnapshotPruned)
		}
	}
	return nil
}
