//go:build unix

package localfs

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

func TestReadDirBeneath(t *testing.T) {
	tests := []struct {
		name string
		// make lays the case out in ws (the root) beside secret, a hidden
		// folder holding key.
		make func(t *testing.T, ws, secret string)
		list string
		// want is the names listed, or "missing", "refused" or "not a folder".
		want []string
	}{
		{"the root itself", func(t *testing.T, ws, _ string) { write(t, filepath.Join(ws, "a")) }, ".", []string{"a"}},
		{"a folder beneath", func(t *testing.T, ws, _ string) {
			write(t, filepath.Join(ws, "skills", "x", "SKILL.md"))
			write(t, filepath.Join(ws, "skills", "y", "SKILL.md"))
		}, "skills", []string{"x", "y"}},
		{"nothing", func(*testing.T, string, string) {}, "skills", []string{"missing"}},
		{"a file", func(t *testing.T, ws, _ string) { write(t, filepath.Join(ws, "skills")) }, "skills", []string{"not a folder"}},
		{"a link to a hidden folder", func(t *testing.T, ws, secret string) {
			link(t, secret, filepath.Join(ws, "skills"))
		}, "skills", []string{"refused"}},
		{"a link out of the root", func(t *testing.T, ws, secret string) {
			link(t, filepath.Dir(secret), filepath.Join(ws, "skills"))
		}, "skills", []string{"refused"}},
		{"a name leaving the root", func(*testing.T, string, string) {}, "../secret", []string{"refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			ws, secret := filepath.Join(base, "ws"), filepath.Join(base, "secret")
			write(t, filepath.Join(secret, "key"))
			write(t, filepath.Join(ws, ".keep"))
			tt.make(t, ws, secret)
			entries, err := ReadDirBeneath(ws, tt.list, []string{secret})
			var got []string
			switch {
			case errors.Is(err, fs.ErrNotExist):
				got = []string{"missing"}
			case errors.Is(err, ErrRefused):
				got = []string{"refused"}
			case errors.Is(err, syscall.ENOTDIR):
				got = []string{"not a folder"}
			case err != nil:
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name() != ".keep" {
					got = append(got, e.Name())
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ReadDirBeneath(%q) = %q (%v), want %q", tt.list, got, err, tt.want)
			}
		})
	}
}

func TestReadDirBeneathRefusesAHiddenRoot(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "key"))
	if _, err := ReadDirBeneath(root, ".", []string{root}); !errors.Is(err, ErrRefused) {
		t.Fatalf("listing a hidden root: %v, want a refusal", err)
	}
}
