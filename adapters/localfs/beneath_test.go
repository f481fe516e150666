//go:build unix

package localfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// opener opens name beneath root as OpenBeneath does, by one of its two
// ways.
type opener func(root, name string, hidden []string) (*os.File, error)

// walkOnly opens by the component walk, the way taken where the kernel
// has no openat2.
func walkOnly(root, name string, hidden []string) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dir)
	file, err := walkBeneath(dir, root, name)
	if err != nil {
		return nil, err
	}
	if err := checkOpened(file, root, name, hidden); err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

func TestOpenBeneath(t *testing.T) {
	// outcome of a case: "ok" (reads "text"), "missing" or "refused".
	type outcome string
	tests := []struct {
		name string
		// make lays the case out in ws (the root) beside secret, a hidden
		// folder holding key ("a key") and outside, a folder that is not
		// hidden holding plain ("plain").
		make func(t *testing.T, ws, secret, outside string)
		open string
		// openat2 and walk are the outcomes of each way; they differ only
		// for links that stay beneath the root.
		openat2, walk outcome
	}{
		{"a regular file", func(t *testing.T, ws, _, _ string) { write(t, filepath.Join(ws, "AGENTS.md")) }, "AGENTS.md", "ok", "ok"},
		{"a file in a folder", func(t *testing.T, ws, _, _ string) { write(t, filepath.Join(ws, "a", "AGENTS.md")) }, "a/AGENTS.md", "ok", "ok"},
		{"nothing", func(*testing.T, string, string, string) {}, "AGENTS.md", "missing", "missing"},
		{"a link to a file beneath", func(t *testing.T, ws, _, _ string) {
			write(t, filepath.Join(ws, "docs", "real.md"))
			link(t, "docs/real.md", filepath.Join(ws, "AGENTS.md"))
		}, "AGENTS.md", "ok", "refused"},
		{"a link to a hidden file", func(t *testing.T, ws, secret, _ string) {
			link(t, filepath.Join(secret, "key"), filepath.Join(ws, "AGENTS.md"))
		}, "AGENTS.md", "refused", "refused"},
		{"a relative link out of the root", func(t *testing.T, ws, _, outside string) {
			rel, _ := filepath.Rel(ws, filepath.Join(outside, "plain"))
			link(t, rel, filepath.Join(ws, "AGENTS.md"))
		}, "AGENTS.md", "refused", "refused"},
		{"a folder linked out of the root", func(t *testing.T, ws, secret, _ string) {
			link(t, secret, filepath.Join(ws, "a"))
		}, "a/key", "refused", "refused"},
		{"a dangling link", func(t *testing.T, ws, _, _ string) { link(t, "gone.md", filepath.Join(ws, "AGENTS.md")) }, "AGENTS.md", "missing", "refused"},
		{"a magic link of /proc", func(t *testing.T, ws, _, _ string) {
			link(t, "/proc/self/root/etc/hostname", filepath.Join(ws, "AGENTS.md"))
		}, "AGENTS.md", "refused", "refused"},
		{"a hard link to a hidden file", func(t *testing.T, ws, secret, _ string) {
			if err := os.Link(filepath.Join(secret, "key"), filepath.Join(ws, "AGENTS.md")); err != nil {
				t.Fatal(err)
			}
		}, "AGENTS.md", "refused", "refused"},
		{"a hidden folder inside the root", func(t *testing.T, ws, _, _ string) {
			write(t, filepath.Join(ws, ".albedo", "daemon.json"))
			link(t, ".albedo/daemon.json", filepath.Join(ws, "AGENTS.md"))
		}, "AGENTS.md", "refused", "refused"},
		{"a FIFO", func(t *testing.T, ws, _, _ string) {
			if err := syscall.Mkfifo(filepath.Join(ws, "AGENTS.md"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "AGENTS.md", "refused", "refused"},
		{"a folder", func(t *testing.T, ws, _, _ string) {
			if err := os.Mkdir(filepath.Join(ws, "AGENTS.md"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, "AGENTS.md", "folder", "folder"},
		{"a name climbing out", func(t *testing.T, ws, _, _ string) { write(t, filepath.Join(ws, "AGENTS.md")) }, "../AGENTS.md", "refused", "refused"},
	}
	ways := []struct {
		name string
		open opener
		pick func(openat2, walk outcome) outcome
	}{
		{"openat2", OpenBeneath, func(o, _ outcome) outcome { return o }},
		{"walk", walkOnly, func(_, w outcome) outcome { return w }},
	}
	for _, way := range ways {
		for _, tt := range tests {
			t.Run(way.name+"/"+tt.name, func(t *testing.T) {
				base := t.TempDir()
				ws, secret, outside := filepath.Join(base, "ws"), filepath.Join(base, "secret"), filepath.Join(base, "outside")
				for _, d := range []string{ws, secret, outside} {
					if err := os.Mkdir(d, 0o700); err != nil {
						t.Fatal(err)
					}
				}
				write(t, filepath.Join(secret, "key"))
				write(t, filepath.Join(outside, "plain"))
				tt.make(t, ws, secret, outside)
				hidden := []string{secret, filepath.Join(ws, ".albedo")}
				file, err := way.open(ws, tt.open, hidden)
				var got outcome
				switch {
				case err == nil:
					got = "ok"
					file.Close()
				case errors.Is(err, fs.ErrNotExist):
					got = "missing"
				case errors.Is(err, ErrRefused):
					got = "refused"
				case errors.Is(err, ErrFolder):
					got = "folder"
				default:
					t.Fatalf("open: %v", err)
				}
				if want := way.pick(tt.openat2, tt.walk); got != want {
					t.Errorf("got %s (%v), want %s", got, err, want)
				}
			})
		}
	}
}

func TestOpenBeneathRefusesARootUnderAHiddenPath(t *testing.T) {
	secret := t.TempDir()
	write(t, filepath.Join(secret, "AGENTS.md"))
	if _, err := OpenBeneath(secret, "AGENTS.md", []string{secret}); !errors.Is(err, ErrRefused) {
		t.Fatalf("err = %v, want ErrRefused", err)
	}
	// The hidden path may be named through a link.
	alias := filepath.Join(t.TempDir(), "alias")
	link(t, secret, alias)
	if _, err := OpenBeneath(secret, "AGENTS.md", []string{alias}); !errors.Is(err, ErrRefused) {
		t.Fatalf("through a link: err = %v, want ErrRefused", err)
	}
}

func TestReadBeneath(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "f"), []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadBeneath(ws, "f", nil, 5); err != nil || string(data) != "12345" {
		t.Fatalf("ReadBeneath at the limit = %q, %v", data, err)
	}
	if _, err := ReadBeneath(ws, "f", nil, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: err = %v, want ErrTooLarge", err)
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("text"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
