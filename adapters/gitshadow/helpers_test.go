package gitshadow

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// newShadows returns shadows under a temporary folder, skipping the test
// when git is missing.
func newShadows(t testing.TB, limits Limits) *Shadows {
	t.Helper()
	s, err := New(filepath.Join(t.TempDir(), "checkpoints"), limits)
	if err == ErrNoGit {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not on PATH, which CI must provide (scripts/test.sh installs it)")
		}
		t.Skip("git is not on PATH")
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// files writes each name's content (a trailing "!" in the name makes it
// executable), making folders as needed.
func files(t testing.TB, dir string, contents map[string]string) {
	t.Helper()
	for name, content := range contents {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, "!") {
			name, mode = strings.TrimSuffix(name, "!"), 0o755
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// fileState describes every file under dir but .git: its content's hash and
// its mode, and each symlink's target.
func fileState(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[rel] = fi.Mode().String() + " " + hex.EncodeToString(sum[:8])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffStates lists what differs between two states.
func diffStates(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if b[k] != v {
			d = append(d, k+": "+v+" / "+b[k])
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k+": (none) / "+v)
		}
	}
	sort.Strings(d)
	return d
}

// sh runs a shell command in dir.
func sh(t testing.TB, dir, script string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}
