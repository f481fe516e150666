package gitshadow

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// firstSnapshotFactor is how many times the time limit a workspace's
// first snapshot may take: it stores every file.
const firstSnapshotFactor = 4

// indexEntries returns how many files the shadow's index holds, read from
// its header (0 without an index).
func (sh *shadow) indexEntries() int {
	f, err := os.Open(filepath.Join(sh.dir, "index"))
	if err != nil {
		return 0
	}
	defer f.Close()
	var head [12]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:4]) != "DIRC" {
		return 0
	}
	return int(binary.BigEndian.Uint32(head[8:]))
}

// first says whether the shadow has no snapshot yet: its index is missing.
func (sh *shadow) first() bool {
	_, err := os.Stat(filepath.Join(sh.dir, "index"))
	return err != nil
}

// Snapshot records the workspace's files and returns the id of their tree.
func (s *Shadows) Snapshot(ctx context.Context, workspace string, written []string) (string, error) {
	sh, unlock, err := s.open(ctx, workspace)
	if err != nil {
		return "", err
	}
	defer unlock()
	if reason := sh.off(); reason != "" {
		return "", albedo.Errorf(albedo.ETooLarge, "snapshots are off for %s: %s", sh.workspace, reason)
	}
	limit := s.limits.Timeout
	if sh.first() {
		limit *= firstSnapshotFactor
		sh.seed(ctx)
	}
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tree, err := s.snapshot(tctx, sh, written)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return "", sh.turnOff(fmt.Sprintf("a snapshot took longer than %s", limit))
	}
	var tooMany *albedo.Error
	if errors.As(err, &tooMany) && tooMany.Code == albedo.ETooLarge {
		return "", sh.turnOff(tooMany.Message)
	}
	return tree, err
}

// snapshot returns the last snapshot when the workspace's stamp is the
// one taken before it was recorded (no git process runs then), and
// records a new one otherwise. The stamp is taken before git lists the
// changes, so that what changes during the listing makes the next stamp
// differ.
func (s *Shadows) snapshot(ctx context.Context, sh *shadow, written []string) (string, error) {
	now, err := sh.stampOf(s.now(), s.limits.MaxFiles)
	if err == nil && sh.stamped && now == sh.stamp && sh.last != "" && len(written) == 0 {
		return sh.last, nil
	}
	sh.stamped = false
	tree, rerr := s.record(ctx, sh, written)
	if rerr == nil && err == nil {
		sh.stamp, sh.stamped = now, true
	}
	return tree, rerr
}

// record updates the shadow's index with what changed and writes its
// tree, committed when new.
func (s *Shadows) record(ctx context.Context, sh *shadow, written []string) (string, error) {
	if err := sh.writeExcludes(); err != nil {
		return "", err
	}
	out, err := sh.run(ctx, nil, "ls-files", "-z", "--modified", "--others", "--exclude-standard")
	if err != nil {
		return "", fmt.Errorf("list the changed files of %s: %w", sh.workspace, err)
	}
	paths := splitNul(out)
	if n := sh.indexEntries() + len(paths); n > s.limits.MaxFiles {
		return "", albedo.Errorf(albedo.ETooLarge, "%d files or more to record, over the limit of %d", n, s.limits.MaxFiles)
	}
	for _, p := range written {
		if rel, ok := sh.relative(p); ok {
			paths = append(paths, rel)
		}
	}
	var update bytes.Buffer
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if seen[p] || strings.HasSuffix(p, "/") || !cleanPath(p) {
			continue
		}
		seen[p] = true
		fi, err := os.Lstat(filepath.Join(sh.workspace, filepath.FromSlash(p)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			continue
		case fi.IsDir():
			continue
		case fi.Mode().IsRegular() && fi.Size() > s.limits.MaxFileBytes:
			continue
		case !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0:
			continue
		}
		update.WriteString(p)
		update.WriteByte(0)
	}
	if update.Len() == 0 && sh.last != "" {
		return sh.last, nil
	}
	if update.Len() > 0 {
		args := []string{"update-index", "-z", "--add", "--remove", "--stdin"}
		if sh.first() {
			// Every file at once: into one pack file (git's bulk check-in of
			// files over core.bigFileThreshold) rather than a file each.
			args = append([]string{"-c", "core.bigFileThreshold=1"}, args...)
		}
		if _, err := sh.run(ctx, update.Bytes(), args...); err != nil {
			return "", fmt.Errorf("record the files of %s: %w", sh.workspace, err)
		}
	}
	args := []string{"write-tree"}
	if sh.borrows() {
		args = append(args, "--missing-ok")
	}
	out, err = sh.run(ctx, nil, args...)
	if err != nil {
		return "", fmt.Errorf("record the files of %s: %w", sh.workspace, err)
	}
	tree := strings.TrimSpace(string(out))
	if err := sh.keepChanged(ctx, sh.previous(), tree); err != nil {
		return "", err
	}
	if err := sh.keep(tree, s.now().Unix()); err != nil {
		return "", err
	}
	sh.last = tree
	return tree, nil
}

// writeExcludes writes the shadow's exclusions: the default folders, the
// folder of the shadows when the workspace holds it, and the workspace
// repository's own info/exclude, read, never written.
func (sh *shadow) writeExcludes() error {
	var b strings.Builder
	for _, e := range defaultExcludes() {
		b.WriteString(e + "\n")
	}
	if rel, ok := sh.relative(filepath.Dir(sh.dir)); ok && filepath.IsAbs(filepath.Dir(sh.dir)) {
		b.WriteString("/" + rel + "/\n")
	}
	if own, err := os.ReadFile(filepath.Join(sh.workspace, ".git", "info", "exclude")); err == nil {
		b.Write(own)
		b.WriteString("\n")
	}
	name := filepath.Join(sh.dir, "info", "exclude")
	if old, err := os.ReadFile(name); err == nil && string(old) == b.String() {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return fmt.Errorf("write the exclusions of %s: %w", sh.workspace, err)
	}
	if err := os.WriteFile(name, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("write the exclusions of %s: %w", sh.workspace, err)
	}
	return nil
}

// relative turns an absolute path the kernel's trace names into one
// relative to the workspace; ok is false for a path outside it.
func (sh *shadow) relative(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(p), true
	}
	rel, err := filepath.Rel(sh.workspace, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// cleanPath says whether p is a clean relative path with no .git in it.
func cleanPath(p string) bool {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	for _, el := range strings.Split(p, "/") {
		if strings.EqualFold(el, ".git") {
			return false
		}
	}
	return true
}

// off returns why snapshots are off for the workspace, "" when they are on.
func (sh *shadow) off() string {
	b, err := os.ReadFile(filepath.Join(sh.dir, "off"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// turnOff turns snapshots off for the workspace, for reason.
func (sh *shadow) turnOff(reason string) error {
	if err := os.WriteFile(filepath.Join(sh.dir, "off"), []byte(reason+"\n"), 0o600); err != nil {
		return fmt.Errorf("turn snapshots off for %s: %w", sh.workspace, err)
	}
	return albedo.Errorf(albedo.ETooLarge, "snapshots are off for %s: %s", sh.workspace, reason)
}
