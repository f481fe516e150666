package albedo

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"
)

// InstructionFile is one project instruction file as read.
type InstructionFile struct {
	// Source names the file: its path relative to the repository root,
	// or "ALBEDO_HOME/AGENTS.md" for the user's own.
	Source string
	Text   string
}

// InstructionSet is what a workspace's instruction files say, in the
// order they are sent.
type InstructionSet struct {
	Files []InstructionFile
	// Skills are the Agent Skills the workspace offers, by name; only
	// their names and descriptions are sent (see SkillsBlock).
	Skills []Skill
	// Warnings say which files were skipped and why.
	Warnings []string
}

// InstructionSource finds and reads the project instruction files of a
// workspace: $ALBEDO_HOME/AGENTS.md, then from the repository root down to
// the workspace the first usable one of AGENTS.override.md, AGENTS.md and
// CLAUDE.md in each folder. A file that is over MaxInstructionFile bytes
// or not UTF-8 is skipped with a warning, and the next name is tried. It
// may also find the skills the workspace offers (InstructionSet.Skills),
// and then implements SkillReader too.
type InstructionSource interface {
	Instructions(ctx context.Context, workspace string) (InstructionSet, error)
}

// PythonVersioner is a Kernel that can say which Python version it runs
// for a workspace ("" when it cannot tell).
type PythonVersioner interface {
	PythonVersion(ctx context.Context, workspace string) string
}

// MaxInstructionFile is the largest instruction file that is read.
const MaxInstructionFile = 1 << 20

// MaxInstructionText caps the file text of all instruction files sent
// with a request, wrappers not counted.
const MaxInstructionText = 32 << 10

// InstructionUse is what was sent of one instruction file.
type InstructionUse struct {
	Path string
	// Bytes is how much of the file's text was included.
	Bytes     int
	Truncated bool
}

// ComposeInstructions joins albedo's own instructions, the environment
// facts, the project instruction files, each file wrapped in a
// <project-instructions source="..."> element, and last the skills
// offered (SkillsBlock). At most MaxInstructionText bytes of file text
// are included in all; the rest is cut with a marker naming the file.
func ComposeInstructions(own, environment string, set InstructionSet) (string, []InstructionUse) {
	var b strings.Builder
	b.WriteString(own)
	if environment != "" {
		b.WriteString("\n\n")
		b.WriteString(environment)
	}
	used := make([]InstructionUse, 0, len(set.Files))
	budget := MaxInstructionText
	for _, f := range set.Files {
		text, truncated := CutUTF8(f.Text, budget)
		budget -= len(text)
		if truncated {
			// Beyond the cut, nothing more is sent.
			budget = 0
		}
		used = append(used, InstructionUse{Path: f.Source, Bytes: len(text), Truncated: truncated})
		if truncated {
			text += fmt.Sprintf("\n[cut: the rest of %s is left out, project instructions are limited to %d KiB in all]", f.Source, MaxInstructionText>>10)
		}
		fmt.Fprintf(&b, "\n\n<project-instructions source=%q>\n%s\n</project-instructions>", f.Source, text)
	}
	if skills := SkillsBlock(set.Skills); skills != "" {
		b.WriteString("\n\n")
		b.WriteString(skills)
	}
	return b.String(), used
}

// CutUTF8 returns at most n bytes of s, cut on a character boundary.
func CutUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// EnvironmentFacts is the short block that tells the model where it runs.
// It changes only when one of its facts does, so that providers can cache
// the prefix of the instructions.
func EnvironmentFacts(workspace, python string, today time.Time) string {
	if python == "" {
		python = "unknown"
	}
	return fmt.Sprintf("<environment>\nWorkspace: %s\nOperating system: %s/%s\nPython (the python tool): %s\nToday: %s\n</environment>",
		workspace, runtime.GOOS, runtime.GOARCH, python, today.Format(time.DateOnly))
}

// InstructionsChangedNote is the system note a turn's user message gets
// when instruction files changed since the session's previous turn.
func InstructionsChangedNote(changed []string) string {
	return "Project instructions changed since the last turn (" + strings.Join(changed, ", ") + "); the system instructions now carry the new text."
}
