package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/albedo-agent/albedo/adapters/localfs"
)

// MaxProjectFile is the largest project server file read.
const MaxProjectFile = 1 << 20

// projectFile is a file at a repository's root naming the repository's
// own servers, and the member holding them by name.
type projectFile struct{ path, member string }

// projectFiles are read in this order: Claude Code's .mcp.json, then
// VS Code's .vscode/mcp.json. A name the first gives wins.
var projectFiles = []projectFile{{".mcp.json", "mcpServers"}, {".vscode/mcp.json", "servers"}}

// workspaceFolder is VS Code's name for the folder a .vscode/mcp.json
// belongs to; it stands for the repository root.
const workspaceFolder = "${workspaceFolder}"

// ProjectServer is a server a repository names for itself. Anyone who can
// write to the repository (the model among them) can write one, so it
// starts only once the user has approved this very entry.
type ProjectServer struct {
	// Config is the server's configuration, checked by the rules of
	// extensions.json.
	Config ServerConfig
	// Root is the repository root, File the file naming the server
	// relative to it (".mcp.json", ".vscode/mcp.json").
	Root, File string
	// Hash identifies the entry: the SHA-256 of the root, the file, the
	// name and the entry's JSON (keys sorted). An approval is of a hash,
	// so an edited entry needs approving again.
	Hash string
}

// Project is what a repository names of its own servers.
type Project struct {
	// Root is the repository root the files were looked for in.
	Root string
	// Servers are the servers that parsed, in file order then by name.
	Servers []ProjectServer
	// Problems say what was wrong with a file or a server, which is then
	// left out.
	Problems []string
}

// ReadProject reads the project server files at the repository root of
// workspace (the nearest ancestor holding .git, or workspace itself). A
// file is read as localfs.ReadBeneath allows: through no link leading out
// of the repository and lying under none of hidden, since the model may
// have written or linked it. A missing file is no servers; a broken one
// is a problem.
func ReadProject(workspace string, hidden []string) Project {
	root := localfs.RepositoryRoot(workspace)
	p := Project{Root: root}
	seen := map[string]string{}
	for _, file := range projectFiles {
		data, err := localfs.ReadBeneath(root, file.path, hidden, MaxProjectFile)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, localfs.ErrFolder):
			continue
		case errors.Is(err, localfs.ErrTooLarge):
			p.Problems = append(p.Problems, fmt.Sprintf("%s was skipped: it is over 1 MiB", file.path))
			continue
		case err != nil:
			var no *localfs.RefusedError
			if errors.As(err, &no) {
				err = errors.New(no.Reason)
			}
			p.Problems = append(p.Problems, fmt.Sprintf("%s was skipped: %v", file.path, err))
			continue
		}
		servers, problems := parseProjectFile(root, file, data)
		p.Problems = append(p.Problems, problems...)
		for _, s := range servers {
			if first, ok := seen[s.Config.Name]; ok {
				p.Problems = append(p.Problems, fmt.Sprintf("%s: server %q is left out: %s names it first", file.path, s.Config.Name, first))
				continue
			}
			seen[s.Config.Name] = file.path
			p.Servers = append(p.Servers, s)
		}
	}
	return p
}

// parseProjectFile reads the servers of one project file.
func parseProjectFile(root string, file projectFile, data []byte) ([]ProjectServer, []string) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, []string{fmt.Sprintf("%s was skipped: not a JSON object: %v", file.path, err)}
	}
	var entries map[string]json.RawMessage
	if raw, ok := doc[file.member]; ok {
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, []string{fmt.Sprintf("%s was skipped: %s is not an object of servers: %v", file.path, file.member, err)}
		}
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	var servers []ProjectServer
	var problems []string
	for _, name := range names {
		s, err := parseProjectServer(root, file.path, name, entries[name])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: server %q is left out: %v", file.path, name, err))
			continue
		}
		if s != nil {
			servers = append(servers, *s)
		}
	}
	return servers, problems
}

// parseProjectServer checks one entry of a project file by the rules of
// extensions.json, settings other clients add (VS Code's "dev", say)
// aside; nil for a disabled one.
func parseProjectServer(root, file, name string, raw json.RawMessage) (*ProjectServer, error) {
	if err := checkServerName(name); err != nil {
		return nil, err
	}
	var f serverFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("not valid: %w", err)
	}
	if f.Type == "sse" {
		return nil, fmt.Errorf("type sse is not supported; albedo reaches stdio and streamable HTTP servers")
	}
	f.Command = atRoot(f.Command, root)
	for i := range f.Args {
		f.Args[i] = atRoot(f.Args[i], root)
	}
	for k, v := range f.Env {
		f.Env[k] = atRoot(v, root)
	}
	if f.Cwd = atRoot(f.Cwd, root); f.Cwd != "" && !filepath.IsAbs(f.Cwd) {
		f.Cwd = filepath.Join(root, f.Cwd)
	}
	if f.Command != "" && f.Cwd == "" {
		f.Cwd = root
	}
	cfg, enabled, err := checkServer(name, f)
	if err != nil || !enabled {
		return nil, err
	}
	hash, err := entryHash(root, file, name, raw)
	if err != nil {
		return nil, err
	}
	return &ProjectServer{Config: cfg, Root: root, File: file, Hash: hash}, nil
}

// atRoot replaces VS Code's ${workspaceFolder} with the repository root.
func atRoot(value, root string) string {
	return strings.ReplaceAll(value, workspaceFolder, root)
}

// entryHash is the hash an approval names: of the root, the file, the
// server's name and its entry with keys sorted, so that reformatting the
// file keeps an approval and any change to the entry drops it.
func entryHash(root, file, name string, raw json.RawMessage) (string, error) {
	var entry any
	if err := json.Unmarshal(raw, &entry); err != nil {
		return "", fmt.Errorf("not valid: %w", err)
	}
	canonical, err := json.Marshal(entry)
	if err != nil {
		return "", fmt.Errorf("hashing the entry: %w", err)
	}
	h := sha256.New()
	for _, part := range []string{"albedo mcp approval 1", root, file, name} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil)), nil
}
