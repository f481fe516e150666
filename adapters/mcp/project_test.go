package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repo makes a repository folder holding files (path to content).
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		writeFile(t, filepath.Join(root, name), text)
	}
	return root
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadProject(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		// want are the servers' names and what each runs (the root
		// written as ROOT).
		want map[string]string
		// problems are parts of the problems expected, in order.
		problems []string
	}{
		{
			name:  "no file names no server",
			files: map[string]string{"README": "x"},
			want:  map[string]string{},
		},
		{
			name: "Claude Code's .mcp.json names servers under mcpServers",
			files: map[string]string{".mcp.json": `{"mcpServers": {
				"tools": {"command": "node", "args": ["server.js"], "env": {"MODE": "x"}},
				"remote": {"type": "http", "url": "https://mcp.example.com/mcp"}}}`},
			want: map[string]string{"tools": "node server.js", "remote": "https://mcp.example.com/mcp"},
		},
		{
			name: "VS Code's .vscode/mcp.json names servers under servers, ${workspaceFolder} the root",
			files: map[string]string{".vscode/mcp.json": `{"inputs": [], "servers": {
				"local": {"type": "stdio", "command": "${workspaceFolder}/bin/server", "args": ["--root", "${workspaceFolder}"], "dev": {}}}}`},
			want: map[string]string{"local": "ROOT/bin/server --root ROOT"},
		},
		{
			name: "a name both files give is .mcp.json's",
			files: map[string]string{
				".mcp.json":        `{"mcpServers": {"s": {"command": "first"}}}`,
				".vscode/mcp.json": `{"servers": {"s": {"command": "second"}, "t": {"command": "third"}}}`,
			},
			want:     map[string]string{"s": "first", "t": "third"},
			problems: []string{`.vscode/mcp.json: server "s" is left out: .mcp.json names it first`},
		},
		{
			name: "a bad entry is left out by the rules of extensions.json, the others serve",
			files: map[string]string{".mcp.json": `{"mcpServers": {
				"legacy": {"type": "sse", "url": "https://x.example/sse"},
				"leaky": {"command": "s", "env": {"GITHUB_TOKEN": "ghp_inline"}},
				"plain": {"url": "http://example.com/mcp"},
				"off": {"command": "s", "enabled": false},
				"good": {"command": "s"}}}`},
			want: map[string]string{"good": "s"},
			problems: []string{
				`server "leaky" is left out: env GITHUB_TOKEN holds a secret written inline`,
				`server "legacy" is left out: type sse is not supported`,
				`server "plain" is left out: url "http://example.com/mcp" is plain http`,
			},
		},
		{
			name:     "a file that is not JSON is a problem",
			files:    map[string]string{".mcp.json": `{"mcpServers": `},
			want:     map[string]string{},
			problems: []string{".mcp.json was skipped: not a JSON object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := repo(t, tt.files)
			p := ReadProject(root, nil)
			got := map[string]string{}
			for _, s := range p.Servers {
				got[s.Config.Name] = strings.ReplaceAll(Runs(s.Config), root, "ROOT")
				if s.Root != root || len(s.Hash) != 64 {
					t.Errorf("%s: root %q, hash %q", s.Config.Name, s.Root, s.Hash)
				}
				if s.Config.Stdio() && s.Config.Cwd != root {
					t.Errorf("%s starts in %q, not the repository root", s.Config.Name, s.Config.Cwd)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("servers = %v, want %v", got, tt.want)
			}
			for name, runs := range tt.want {
				if got[name] != runs {
					t.Errorf("%s runs %q, want %q", name, got[name], runs)
				}
			}
			if len(p.Problems) != len(tt.problems) {
				t.Fatalf("problems = %q, want %d", p.Problems, len(tt.problems))
			}
			for i, want := range tt.problems {
				if !strings.Contains(p.Problems[i], want) {
					t.Errorf("problem %d = %q, want it to say %q", i, p.Problems[i], want)
				}
			}
		})
	}
}

func TestReadProjectFindsTheRepositoryRootAndStaysInIt(t *testing.T) {
	root := repo(t, map[string]string{".mcp.json": `{"mcpServers": {"s": {"command": "s", "cwd": "tools"}}}`})
	sub := filepath.Join(root, "pkg", "deep")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	p := ReadProject(sub, nil)
	if p.Root != root || len(p.Servers) != 1 || p.Servers[0].Config.Cwd != filepath.Join(root, "tools") {
		t.Fatalf("from a subfolder: %+v", p)
	}

	// A file the model linked to one outside the repository, or lying
	// under a hidden folder, is not read.
	outside := filepath.Join(t.TempDir(), "servers.json")
	writeFile(t, outside, `{"mcpServers": {"evil": {"command": "s"}}}`)
	linked := repo(t, nil)
	if err := os.Symlink(outside, filepath.Join(linked, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	if p := ReadProject(linked, nil); len(p.Servers) != 0 || len(p.Problems) != 1 {
		t.Errorf("a link out of the repository: %+v", p)
	}
	if p := ReadProject(root, []string{root}); len(p.Servers) != 0 || len(p.Problems) != 1 {
		t.Errorf("a file under a hidden folder: %+v", p)
	}
}

func TestEntryHash(t *testing.T) {
	entry := `{"command": "node", "args": ["a.js"]}`
	base, _ := entryHash("/r", ".mcp.json", "s", []byte(entry))
	tests := []struct {
		name            string
		root, file, srv string
		entry           string
		same            bool
	}{
		{"reformatted, keys reordered", "/r", ".mcp.json", "s", "{\"args\":[\"a.js\"],\n \"command\":\"node\"}", true},
		{"an argument edited", "/r", ".mcp.json", "s", `{"command": "node", "args": ["b.js"]}`, false},
		{"another repository", "/other", ".mcp.json", "s", entry, false},
		{"another file", "/r", ".vscode/mcp.json", "s", entry, false},
		{"another name", "/r", ".mcp.json", "t", entry, false},
	}
	for _, tt := range tests {
		got, err := entryHash(tt.root, tt.file, tt.srv, []byte(tt.entry))
		if err != nil {
			t.Fatal(err)
		}
		if (got == base) != tt.same {
			t.Errorf("%s: same hash = %v, want %v", tt.name, got == base, tt.same)
		}
	}
}

func TestApprovalsGateProjectServers(t *testing.T) {
	home := t.TempDir()
	root := repo(t, map[string]string{".mcp.json": `{"mcpServers": {"tools": {"command": "node", "args": ["v1.js"]}, "mine": {"command": "x"}}}`})
	user := ParseConfig([]byte(`{"servers": {"mine": {"command": "my-own"}}}`))
	approvals := NewApprovals(home)

	w := approvals.Workspace(user, ReadProject(root, nil))
	if _, ok := w.Servers["tools"]; ok || len(w.Waiting) != 1 || w.Waiting[0].Config.Name != "tools" {
		t.Fatalf("before approval: servers %v, waiting %+v", w.Servers, w.Waiting)
	}
	if w.Servers["mine"].Command != "my-own" || len(w.Problems) != 1 || !strings.Contains(w.Problems[0], `extensions.json names a server "mine" too`) {
		t.Errorf("the user's own server of the same name: %+v, problems %q", w.Servers["mine"], w.Problems)
	}

	if err := approvals.Approve(w.Project["tools"], time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	w = NewApprovals(home).Workspace(user, ReadProject(root, nil))
	if w.Servers["tools"].Command != "node" || len(w.Waiting) != 0 {
		t.Fatalf("after approval: servers %v, waiting %+v", w.Servers, w.Waiting)
	}
	if info, err := os.Stat(filepath.Join(home, ApprovalsFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("approvals file: %v, %v", info, err)
	}

	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"tools": {"command": "node", "args": ["v2.js"]}}}`)
	w = approvals.Workspace(user, ReadProject(root, nil))
	if _, ok := w.Servers["tools"]; ok || len(w.Waiting) != 1 {
		t.Fatalf("after an edit: servers %v, waiting %+v", w.Servers, w.Waiting)
	}
}
