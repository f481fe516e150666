package localfs

import (
	"os"
	"path/filepath"
)

// RepositoryRoot is the nearest ancestor of workspace (itself included)
// holding .git, or workspace when none does: where a project keeps the
// files albedo reads for it (instructions, MCP servers).
func RepositoryRoot(workspace string) string {
	dir := filepath.Clean(workspace)
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Clean(workspace)
		}
		dir = parent
	}
}
