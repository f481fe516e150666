package gitshadow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// keepRef names the commit whose tree holds every snapshot a shadow keeps,
// so that git's gc keeps them and drops the others.
const keepRef = "refs/albedo/kept"

// Prune drops from each shadow the snapshots past its bounds (see
// pruneList) and runs git's gc over what is left. It never waits for a
// shadow: one that a snapshot, a diff or a restore holds is skipped, and
// a snapshot or a restore that starts while its shadow is pruned stops
// the pruning (and its gc, with every process git started) and goes on.
// It returns how many snapshots were dropped.
func (s *Shadows) Prune(ctx context.Context) (int, error) {
	found, err := filepath.Glob(filepath.Join(s.dir, "*", listName))
	if err != nil {
		return 0, fmt.Errorf("find the shadows to prune: %w", err)
	}
	dropped := 0
	var errs []error
	for _, name := range found {
		ws, err := os.ReadFile(filepath.Join(filepath.Dir(name), "workspace"))
		if err != nil {
			continue
		}
		n, err := s.pruneOne(ctx, filepath.Dir(name), strings.TrimSpace(string(ws)))
		dropped += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return dropped, errors.Join(errs...)
}

// pruneOne prunes the shadow in dir, unless another call holds it.
func (s *Shadows) pruneOne(ctx context.Context, dir, workspace string) (int, error) {
	key := filepath.Base(dir)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	st := s.states[key]
	if st == nil {
		st = &state{}
		s.states[key] = st
	}
	if !st.mu.TryLock() {
		s.mu.Unlock()
		return 0, nil
	}
	st.stopPrune = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		st.stopPrune = nil
		s.mu.Unlock()
		st.mu.Unlock()
	}()
	sh := &shadow{git: s.git, dir: dir, workspace: workspace, state: st}
	keep, dropped, err := sh.pruneList(s.now(), s.limits)
	if err != nil || dropped == 0 {
		return 0, err
	}
	if err := sh.gc(ctx, keep); err != nil {
		return dropped, fmt.Errorf("prune the snapshots of %s: %w", workspace, err)
	}
	return dropped, nil
}

// pruneList rewrites the shadow's list with only the snapshots it keeps,
// and returns them with how many it dropped. A snapshot stands for the
// workspace from when it was taken until the next one was, so its age is
// counted from the next one's time (its own for the newest). It keeps the
// newest, that of a restore in progress, and of the others the newest
// KeepSnapshots that are not older than KeepDays.
func (sh *shadow) pruneList(now time.Time, limits Limits) (keep []string, dropped int, err error) {
	name := filepath.Join(sh.dir, listName)
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, 0, fmt.Errorf("read the snapshots of %s: %w", sh.workspace, err)
	}
	type entry struct {
		tree  string
		until int64
	}
	var order []entry
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		until := now.Unix()
		if i+1 < len(lines) {
			if next := strings.Fields(lines[i+1]); len(next) > 1 {
				until, _ = strconv.ParseInt(next[1], 10, 64)
			}
		}
		order = append(order, entry{f[0], until})
	}
	if len(order) == 0 {
		return nil, 0, nil
	}
	// The trees, newest first (by their last line), with when each last
	// stood for the files.
	var trees []string
	latest := map[string]int64{}
	for i := len(order) - 1; i >= 0; i-- {
		e := order[i]
		if _, seen := latest[e.tree]; !seen {
			trees = append(trees, e.tree)
			latest[e.tree] = e.until
		}
	}
	oldest := now.Add(-time.Duration(limits.KeepDays) * 24 * time.Hour).Unix()
	kept := map[string]bool{trees[0]: true, sh.restoring(): true}
	for i, t := range trees {
		if i < limits.KeepSnapshots && latest[t] >= oldest {
			kept[t] = true
		}
	}
	var out strings.Builder
	for _, line := range lines {
		if f := strings.Fields(line); len(f) > 0 && kept[f[0]] {
			out.WriteString(line + "\n")
		}
	}
	for _, t := range trees {
		if kept[t] {
			keep = append(keep, t)
		}
	}
	dropped = len(trees) - len(keep)
	if dropped == 0 {
		return keep, 0, nil
	}
	if err := atomicfile.Write(name, []byte(out.String()), 0o600); err != nil {
		return nil, 0, fmt.Errorf("prune the snapshots of %s: %w", sh.workspace, err)
	}
	sh.list, sh.newest = nil, ""
	return keep, dropped, nil
}

// restoring returns the snapshot of the shadow's unfinished restore, "" when
// there is none.
func (sh *shadow) restoring() string {
	b, err := os.ReadFile(filepath.Join(sh.dir, journalName))
	if err != nil {
		return ""
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		return ""
	}
	return j.Snapshot
}

// gc points keepRef at a commit of the kept snapshots and runs git's gc,
// which drops every object no kept snapshot names. The user's objects are
// readable to it, as the snapshots may name them, and never copied.
func (sh *shadow) gc(ctx context.Context, keep []string) error {
	var tree strings.Builder
	for _, t := range keep {
		fmt.Fprintf(&tree, "040000 tree %s\t%s\n", t, t)
	}
	out, err := sh.run(ctx, []byte(tree.String()), "mktree")
	if err != nil {
		return err
	}
	out, err = sh.run(ctx, nil, "commit-tree", "-m", "snapshots kept", strings.TrimSpace(string(out)))
	if err != nil {
		return err
	}
	if _, err := sh.run(ctx, nil, "update-ref", keepRef, strings.TrimSpace(string(out))); err != nil {
		return err
	}
	cmd := sh.command(ctx, sh.dir+"/index", sh.borrowing(), "gc", "--quiet", "--prune=now")
	// gc runs other git commands: stopping it stops them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("git gc: %w: %s", err, strings.TrimSpace(string(out[:min(len(out), 4096)])))
	}
	return nil
}
