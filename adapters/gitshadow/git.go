package gitshadow

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// gitOptions returns what every git command line sets: whatever the
// shadow's own configuration says, nothing of the user's runs or changes
// how files are read and written.
func gitOptions() []string {
	return []string{
		"-c", "core.hooksPath=/dev/null",
		"-c", "core.fsmonitor=false",
		"-c", "core.untrackedCache=false",
		"-c", "core.autocrlf=false",
		"-c", "core.safecrlf=false",
		"-c", "core.filemode=true",
		"-c", "core.symlinks=true",
		"-c", "core.ignorecase=false",
		"-c", "core.precomposeunicode=false",
		"-c", "core.quotePath=false",
		"-c", "core.bare=false",
		"-c", "core.sparseCheckout=false",
		"-c", "gc.auto=0",
		"-c", "maintenance.auto=false",
		"-c", "advice.embeddedRepo=false",
		"-c", "index.threads=1",
		"--literal-pathspecs",
	}
}

// shadow is one workspace's shadow repository.
type shadow struct {
	git       string
	dir       string
	workspace string
	// state is the workspace's in Shadows, locked by the caller.
	*state
}

// env is the environment of every git command of the shadow: only what
// git needs, none of the caller's GIT_* variables, and no configuration
// but the shadow's own. A shadow with no workspace is one being made.
func (sh *shadow) env(index string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + sh.dir,
		"LC_ALL=C",
		"GIT_DIR=" + sh.dir,
		"GIT_INDEX_FILE=" + index,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=albedo", "GIT_AUTHOR_EMAIL=albedo@localhost",
		"GIT_COMMITTER_NAME=albedo", "GIT_COMMITTER_EMAIL=albedo@localhost",
	}
	if sh.workspace != "" {
		env = append(env, "GIT_WORK_TREE="+sh.workspace)
	}
	return env
}

// run runs git in the workspace with stdin, against the shadow's index,
// and returns its standard output.
func (sh *shadow) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return sh.runIndex(ctx, sh.dir+"/index", stdin, args...)
}

// runIndex is run against another index file.
func (sh *shadow) runIndex(ctx context.Context, index string, stdin []byte, args ...string) ([]byte, error) {
	return sh.runEnv(ctx, index, nil, stdin, args...)
}

// runBorrowing is run with the objects of the workspace's own repository
// readable, when the shadow borrows from it (see borrow.go).
func (sh *shadow) runBorrowing(ctx context.Context, index string, stdin []byte, args ...string) ([]byte, error) {
	return sh.runEnv(ctx, index, sh.borrowing(), stdin, args...)
}

// borrowing returns the variables that make the objects of the
// workspace's own repository readable, when the shadow borrows from it.
func (sh *shadow) borrowing() []string {
	if objects := sh.userObjects(); objects != "" && sh.borrows() {
		return []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + objects}
	}
	return nil
}

// command is a git command of the shadow against index, with extra
// variables in its environment.
func (sh *shadow) command(ctx context.Context, index string, extra []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, sh.git, append(gitOptions(), args...)...)
	cmd.Dir = sh.workspace
	if cmd.Dir == "" {
		cmd.Dir = sh.dir
	}
	cmd.Env = append(sh.env(index), extra...)
	cmd.WaitDelay = time.Second
	return cmd
}

// runEnv is run with extra variables in its environment.
func (sh *shadow) runEnv(ctx context.Context, index string, extra []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := sh.command(ctx, index, extra, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limited{w: &errb, n: 4 << 10}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// splitNul splits git's NUL-terminated output.
func splitNul(out []byte) []string {
	s := strings.TrimSuffix(string(out), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
