package gitshadow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// journalName is the file in a shadow that names a restore in progress.
const journalName = "restore.json"

// journal is a restore in progress: the snapshot and the paths.
type journal struct {
	Snapshot string   `json:"snapshot"`
	Paths    []string `json:"paths"`
}

// Restore puts paths back as the snapshot has them. The journal is
// written first and removed last: a crash in between leaves it for
// Recover, which does the restore again.
func (s *Shadows) Restore(ctx context.Context, workspace, snapshot string, paths []string) error {
	for _, p := range paths {
		if !cleanPath(p) {
			return albedo.Errorf(albedo.EInvalid, "cannot restore %q: not a path inside the workspace", p)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	sh, unlock, err := s.open(ctx, workspace)
	if err != nil {
		return err
	}
	defer unlock()
	sh.stamped = false
	if err := sh.kept(snapshot); err != nil {
		return err
	}
	b, err := json.Marshal(journal{Snapshot: snapshot, Paths: paths})
	if err != nil {
		return fmt.Errorf("write the restore journal of %s: %w", sh.workspace, err)
	}
	name := filepath.Join(sh.dir, journalName)
	if err := atomicfile.Write(name, b, 0o600); err != nil {
		return fmt.Errorf("write the restore journal of %s: %w", sh.workspace, err)
	}
	if err := sh.apply(context.WithoutCancel(ctx), snapshot, paths); err != nil {
		return err
	}
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("end the restore of %s: %w", sh.workspace, err)
	}
	return nil
}

// Recover finishes every restore a crash left a journal of.
func (s *Shadows) Recover(ctx context.Context) error {
	found, err := filepath.Glob(filepath.Join(s.dir, "*", journalName))
	if err != nil {
		return fmt.Errorf("find unfinished restores: %w", err)
	}
	var errs []error
	for _, name := range found {
		dir := filepath.Dir(name)
		ws, err := os.ReadFile(filepath.Join(dir, "workspace"))
		if err != nil {
			errs = append(errs, fmt.Errorf("finish the restore in %s: %w", dir, err))
			continue
		}
		var j journal
		b, err := os.ReadFile(name)
		if err == nil {
			err = json.Unmarshal(b, &j)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("finish the restore in %s: %w", dir, err))
			continue
		}
		errs = append(errs, s.Restore(ctx, strings.TrimSpace(string(ws)), j.Snapshot, j.Paths))
	}
	return errors.Join(errs...)
}

// apply writes each path as the snapshot has it and removes those it has
// not, through a scratch index that holds the snapshot.
func (sh *shadow) apply(ctx context.Context, snapshot string, paths []string) error {
	out, err := sh.run(ctx, nil, "ls-tree", "-r", "-z", "--name-only", "--full-tree", snapshot)
	if err != nil {
		return fmt.Errorf("read snapshot %s of %s: %w", snapshot, sh.workspace, err)
	}
	inTree := map[string]bool{}
	for _, p := range splitNul(out) {
		inTree[p] = true
	}
	root, err := os.OpenRoot(sh.workspace)
	if err != nil {
		return fmt.Errorf("restore files of %s: %w", sh.workspace, err)
	}
	defer root.Close()
	var write bytes.Buffer
	for _, p := range paths {
		if inTree[p] {
			write.WriteString(p)
			write.WriteByte(0)
			continue
		}
		if err := root.Remove(filepath.FromSlash(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore %s in %s: %w", p, sh.workspace, err)
		}
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if root.Remove(filepath.FromSlash(dir)) != nil {
				break
			}
		}
	}
	if write.Len() == 0 {
		return nil
	}
	index := filepath.Join(sh.dir, "restore-index")
	defer os.Remove(index)
	if _, err := sh.runIndex(ctx, index, nil, "read-tree", snapshot); err != nil {
		return fmt.Errorf("read snapshot %s of %s: %w", snapshot, sh.workspace, err)
	}
	if _, err := sh.runBorrowing(ctx, index, write.Bytes(), "checkout-index", "-f", "-z", "--stdin"); err != nil {
		return fmt.Errorf("restore files of %s: %w", sh.workspace, err)
	}
	return nil
}
