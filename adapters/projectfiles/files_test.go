package projectfiles

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// layout writes files (path relative to root: content) under root.
func layout(t *testing.T, root string, files map[string]string) {
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
			set, err := New(home).Instructions(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range set.Files {
				got = append(got, f.Source+"="+f.Text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("files = %.200q, want %.200q", got, tt.want)
			}
			if len(set.Warnings) != len(tt.warnings) {
				t.Fatalf("warnings = %q, want %q", set.Warnings, tt.warnings)
			}
			for i, w := range tt.warnings {
				if !strings.HasPrefix(set.Warnings[i], w) {
					t.Errorf("warning %q, want %q", set.Warnings[i], w)
				}
			}
		})
	}
}
