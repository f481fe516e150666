package projectfiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

// HomeSource is the source name of the user's own instruction file.
const HomeSource = "ALBEDO_HOME/AGENTS.md"

// Files finds instruction files on the local file system.
type Files struct {
	// home is the albedo home, "" for none.
	home string
}

var _ albedo.InstructionSource = (*Files)(nil)

// New returns the instruction files of an albedo home (its AGENTS.md) and
// of the workspaces asked about.
func New(home string) *Files { return &Files{home: home} }

// Instructions reads the instruction files of workspace, in the order
// they are sent. A file over albedo.MaxInstructionFile bytes or not UTF-8
// is skipped with a warning, and the next name in its folder is tried.
func (f *Files) Instructions(ctx context.Context, workspace string) (albedo.InstructionSet, error) {
	var set albedo.InstructionSet
	if f.home != "" {
		if text, ok, warn := read(filepath.Join(f.home, "AGENTS.md"), HomeSource); ok {
			set.Files = append(set.Files, albedo.InstructionFile{Source: HomeSource, Text: text})
		} else if warn != "" {
			set.Warnings = append(set.Warnings, warn)
		}
	}
	if workspace == "" {
		return set, nil
	}
	root := repositoryRoot(workspace)
	for _, dir := range chain(root, workspace) {
		if err := ctx.Err(); err != nil {
			return set, err
		}
		// In each folder the first usable name wins.
		for _, name := range []string{"AGENTS.override.md", "AGENTS.md", "CLAUDE.md"} {
			path := filepath.Join(dir, name)
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return set, fmt.Errorf("read instructions in %s: %w", dir, err)
			}
			source := filepath.ToSlash(rel)
			text, ok, warn := read(path, source)
			if warn != "" {
				set.Warnings = append(set.Warnings, warn)
			}
			if ok {
				set.Files = append(set.Files, albedo.InstructionFile{Source: source, Text: text})
				break
			}
		}
	}
	return set, nil
}

// repositoryRoot is the nearest ancestor of workspace (itself included)
// holding .git, or workspace when none does.
func repositoryRoot(workspace string) string {
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

// chain lists the folders from root down to workspace, both included.
func chain(root, workspace string) []string {
	var dirs []string
	for dir := filepath.Clean(workspace); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == root || filepath.Dir(dir) == dir {
			break
		}
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

// read reads one instruction file. ok is false when it is missing or not
// usable; warn then says why, when it exists.
func read(path, source string) (text string, ok bool, warn string) {
	file, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, ""
	}
	if err != nil {
		return "", false, fmt.Sprintf("%s was skipped: %v", source, err)
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return "", false, fmt.Sprintf("%s was skipped: %v", source, err)
	}
	if info.IsDir() {
		return "", false, ""
	}
	if info.Size() > albedo.MaxInstructionFile {
		return "", false, fmt.Sprintf("%s was skipped: it is over 1 MiB (%d bytes)", source, info.Size())
	}
	data, err := io.ReadAll(io.LimitReader(file, albedo.MaxInstructionFile+1))
	if err != nil {
		return "", false, fmt.Sprintf("%s was skipped: %v", source, err)
	}
	if len(data) > albedo.MaxInstructionFile {
		return "", false, fmt.Sprintf("%s was skipped: it is over 1 MiB", source)
	}
	if !utf8.Valid(data) {
		return "", false, fmt.Sprintf("%s was skipped: it is not UTF-8 text", source)
	}
	return string(data), true, ""
}
