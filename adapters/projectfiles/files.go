package projectfiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
)

// HomeSource is the source name of the user's own instruction file.
const HomeSource = "ALBEDO_HOME/AGENTS.md"

// Files finds instruction files on the local file system.
type Files struct {
	// home is the albedo home, "" for none.
	home string
	// hidden returns the paths no project file may lie under; nil for
	// none.
	hidden func(ctx context.Context) []string
}

var (
	_ albedo.InstructionSource = (*Files)(nil)
	_ albedo.SkillReader       = (*Files)(nil)
)

// New returns the instruction files of an albedo home (its AGENTS.md) and
// of the workspaces asked about. hidden returns the paths a sandboxed
// kernel may not read (albedo's home among them): a project file, which
// the model may have written or linked, is read only if it is a regular
// file of one link reached through no link leading out of the repository
// and lying under none of them (see localfs.OpenBeneath). The home's own
// AGENTS.md is the user's, beyond a kernel's reach, and read as it is.
func New(home string, hidden func(ctx context.Context) []string) *Files {
	return &Files{home: home, hidden: hidden}
}

// Instructions reads the instruction files of workspace, in the order
// they are sent, and finds the skills it offers. A file over
// albedo.MaxInstructionFile bytes or not UTF-8 is skipped with a warning,
// and the next name in its folder is tried.
func (f *Files) Instructions(ctx context.Context, workspace string) (albedo.InstructionSet, error) {
	set, err := f.instructionFiles(ctx, workspace)
	if err != nil {
		return set, err
	}
	found, warnings, err := f.skills(ctx, workspace)
	for _, s := range found {
		set.Skills = append(set.Skills, s.Skill)
	}
	set.Warnings = append(set.Warnings, warnings...)
	return set, err
}

// instructionFiles reads the instruction files of workspace, in the
// order they are sent.
func (f *Files) instructionFiles(ctx context.Context, workspace string) (albedo.InstructionSet, error) {
	var set albedo.InstructionSet
	if f.home != "" {
		if text, ok, warn := readOwn(filepath.Join(f.home, "AGENTS.md"), HomeSource); ok {
			set.Files = append(set.Files, albedo.InstructionFile{Source: HomeSource, Text: text})
		} else if warn != "" {
			set.Warnings = append(set.Warnings, warn)
		}
	}
	if workspace == "" {
		return set, nil
	}
	var hidden []string
	if f.hidden != nil {
		hidden = f.hidden(ctx)
	}
	if f.home != "" {
		hidden = append(hidden, f.home)
	}
	root := localfs.RepositoryRoot(workspace)
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
			text, ok, warn := readProject(root, rel, hidden)
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

// readOwn reads the user's own instruction file. ok is false when it is
// missing or not usable; warn then says why, when it exists.
func readOwn(path, source string) (text string, ok bool, warn string) {
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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
	if !info.Mode().IsRegular() {
		return "", false, fmt.Sprintf("%s was skipped: it is not a regular file", source)
	}
	data, err := io.ReadAll(io.LimitReader(file, albedo.MaxInstructionFile+1))
	if err != nil {
		return "", false, fmt.Sprintf("%s was skipped: %v", source, err)
	}
	return checkText(data, source)
}

// readProject reads the instruction file rel beneath the repository root
// as localfs.OpenBeneath allows. ok is false when it is missing or not
// usable; warn then says why, when it exists.
func readProject(root, rel string, hidden []string) (text string, ok bool, warn string) {
	data, err := localfs.ReadBeneath(root, rel, hidden, albedo.MaxInstructionFile)
	source := filepath.ToSlash(rel)
	switch {
	case err == nil:
		return checkText(data, source)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, localfs.ErrFolder):
		return "", false, ""
	case errors.Is(err, localfs.ErrTooLarge):
		return "", false, fmt.Sprintf("%s was skipped: it is over 1 MiB", source)
	}
	var no *localfs.RefusedError
	if errors.As(err, &no) {
		return "", false, fmt.Sprintf("%s was skipped: %s", source, no.Reason)
	}
	return "", false, fmt.Sprintf("%s was skipped: %v", source, err)
}

// checkText accepts data of at most 1 MiB of UTF-8 as an instruction
// file's text.
func checkText(data []byte, source string) (text string, ok bool, warn string) {
	if len(data) > albedo.MaxInstructionFile {
		return "", false, fmt.Sprintf("%s was skipped: it is over 1 MiB", source)
	}
	if !utf8.Valid(data) {
		return "", false, fmt.Sprintf("%s was skipped: it is not UTF-8 text", source)
	}
	return string(data), true, ""
}
