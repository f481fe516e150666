package projectfiles

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// layout writes files (path relative to root: content) under root.
func layout(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInstructions(t *testing.T) {
	tooBig := strings.Repeat("x", albedo.MaxInstructionFile+1)
	tests := []struct {
		name      string
		files     map[string]string
		workspace string
		home      map[string]string
		want      []string // source=text
		warnings  []string
	}{
		{"nothing", map[string]string{".git/HEAD": ""}, "a/b", nil, nil, nil},
		{"root down to the workspace", map[string]string{".git/HEAD": "", "AGENTS.md": "root", "a/AGENTS.md": "a", "a/b/AGENTS.md": "b", "elsewhere/AGENTS.md": "no"}, "a/b", nil,
			[]string{"AGENTS.md=root", "a/AGENTS.md=a", "a/b/AGENTS.md=b"}, nil},
		{"the user's own first", map[string]string{".git/HEAD": "", "AGENTS.md": "root"}, "", map[string]string{"AGENTS.md": "mine"},
			[]string{"ALBEDO_HOME/AGENTS.md=mine", "AGENTS.md=root"}, nil},
		{"override wins over AGENTS.md and CLAUDE.md", map[string]string{".git/HEAD": "", "AGENTS.override.md": "over", "AGENTS.md": "agents", "CLAUDE.md": "claude"}, "", nil,
			[]string{"AGENTS.override.md=over"}, nil},
		{"AGENTS.md wins over CLAUDE.md", map[string]string{".git/HEAD": "", "AGENTS.md": "agents", "CLAUDE.md": "claude"}, "", nil,
			[]string{"AGENTS.md=agents"}, nil},
		{"CLAUDE.md as the fallback", map[string]string{".git/HEAD": "", "CLAUDE.md": "claude", "a/CLAUDE.md": "nested"}, "a", nil,
			[]string{"CLAUDE.md=claude", "a/CLAUDE.md=nested"}, nil},
		{"a file over 1 MiB is skipped and the next name tried", map[string]string{".git/HEAD": "", "AGENTS.override.md": tooBig, "AGENTS.md": "agents"}, "", nil,
			[]string{"AGENTS.md=agents"}, []string{"AGENTS.override.md was skipped: it is over 1 MiB"}},
		{"exactly 1 MiB is read", map[string]string{".git/HEAD": "", "AGENTS.md": tooBig[:albedo.MaxInstructionFile]}, "", nil,
			[]string{"AGENTS.md=" + tooBig[:albedo.MaxInstructionFile]}, nil},
		{"a file that is not UTF-8 is skipped", map[string]string{".git/HEAD": "", "AGENTS.md": "caf\xe9", "CLAUDE.md": "claude"}, "", nil,
			[]string{"CLAUDE.md=claude"}, []string{"AGENTS.md was skipped: it is not UTF-8 text"}},
		{"without .git the workspace is the root", map[string]string{"AGENTS.md": "above", "ws/AGENTS.md": "here"}, "ws", nil,
			[]string{"AGENTS.md=here"}, nil},
		{"a .git file marks a root too", map[string]string{"repo/.git": "gitdir: elsewhere", "repo/AGENTS.md": "r", "repo/x/AGENTS.md": "x", "AGENTS.md": "outside"}, "repo/x", nil,
			[]string{"AGENTS.md=r", "x/AGENTS.md=x"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			layout(t, root, tt.files)
			layout(t, home, tt.home)
			ws := filepath.Join(root, filepath.FromSlash(tt.workspace))
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			set, err := New(home, nil).Instructions(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			wantInstructions(t, set, tt.want, tt.warnings)
		})
	}
}

// TestInstructionsReachNoFurtherThanTheKernel lays out files a model's
// code could make in its workspace to have the daemon read a secret for it.
func TestInstructionsReachNoFurtherThanTheKernel(t *testing.T) {
	tests := []struct {
		name string
		// make lays the case out in the repository root, beside home (the
		// albedo home, holding daemon.json) and secret (a hidden folder
		// holding id_rsa).
		make     func(t *testing.T, root, home, secret string)
		want     []string // source=text
		warnings []string
	}{
		{"a link to the home's daemon.json", func(t *testing.T, root, home, _ string) {
			symlink(t, filepath.Join(home, "daemon.json"), filepath.Join(root, "AGENTS.md"))
		}, nil, []string{"AGENTS.md was skipped: a link on its way leads out of"}},
		{"a relative link to a hidden key, the next name then read", func(t *testing.T, root, _, secret string) {
			rel, err := filepath.Rel(root, filepath.Join(secret, "id_rsa"))
			if err != nil {
				t.Fatal(err)
			}
			symlink(t, rel, filepath.Join(root, "AGENTS.override.md"))
			layout(t, root, map[string]string{"CLAUDE.md": "claude"})
		}, []string{"CLAUDE.md=claude"}, []string{"AGENTS.override.md was skipped: a link on its way leads out of"}},
		{"a hard link to the home's daemon.json", func(t *testing.T, root, home, _ string) {
			if err := os.Link(filepath.Join(home, "daemon.json"), filepath.Join(root, "AGENTS.md")); err != nil {
				t.Fatal(err)
			}
		}, nil, []string{"AGENTS.md was skipped: it has 2 hard links"}},
		{"a home inside the repository", func(t *testing.T, root, _, _ string) {
			layout(t, root, map[string]string{"albedo-home/daemon.json": `{"token":"secret"}`})
			symlink(t, "albedo-home/daemon.json", filepath.Join(root, "AGENTS.md"))
		}, nil, []string{"AGENTS.md was skipped: it lies under the hidden path"}},
		{"a FIFO does not hold the turn", func(t *testing.T, root, _, _ string) {
			if err := syscall.Mkfifo(filepath.Join(root, "AGENTS.md"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, nil, []string{"AGENTS.md was skipped: it is not a regular file"}},
		{"a link within the repository is followed", func(t *testing.T, root, _, _ string) {
			layout(t, root, map[string]string{"AGENTS.md": "shared"})
			symlink(t, "../AGENTS.md", filepath.Join(root, "ws", "CLAUDE.md"))
		}, []string{"AGENTS.md=shared", "ws/CLAUDE.md=shared"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root, home, secret := filepath.Join(base, "repo"), filepath.Join(base, "home"), filepath.Join(base, "secret")
			layout(t, root, map[string]string{".git/HEAD": "", "ws/.keep": ""})
			layout(t, home, map[string]string{"daemon.json": `{"token":"secret"}`})
			layout(t, secret, map[string]string{"id_rsa": "KEY"})
			tt.make(t, root, home, secret)
			hidden := func(context.Context) []string { return []string{secret, filepath.Join(root, "albedo-home")} }
			set, err := New(home, hidden).Instructions(context.Background(), filepath.Join(root, "ws"))
			if err != nil {
				t.Fatal(err)
			}
			wantInstructions(t, set, tt.want, tt.warnings)
		})
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// wantInstructions fails the test unless set holds the files want (each
// source=text, in order) and warnings starting with those of warnings.
func wantInstructions(t *testing.T, set albedo.InstructionSet, want, warnings []string) {
	t.Helper()
	var got []string
	for _, f := range set.Files {
		got = append(got, f.Source+"="+f.Text)
	}
	if !slices.Equal(got, want) {
		t.Errorf("files = %.200q, want %.200q", got, want)
	}
	if len(set.Warnings) != len(warnings) {
		t.Fatalf("warnings = %q, want %q", set.Warnings, warnings)
	}
	for i, w := range warnings {
		if !strings.HasPrefix(set.Warnings[i], w) {
			t.Errorf("warning %q, want %q", set.Warnings[i], w)
		}
	}
}
