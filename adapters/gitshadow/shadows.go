package gitshadow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// Shadows keeps the shadow repositories of workspaces under one folder.
// It is safe for concurrent use; the calls for one workspace run one at a
// time.
type Shadows struct {
	git    string
	dir    string
	limits Limits
	// now is the clock stamps are taken by (see stamp.go) and snapshots
	// are dated by.
	now func() time.Time

	mu     sync.Mutex
	states map[string]*state
}

// state is what Shadows keeps of one workspace's shadow: the lock its
// calls take, the tree of its last snapshot ("" before the first of
// this process), the stamp that snapshot was taken at and its list of
// snapshots (nil until read).
type state struct {
	mu   sync.Mutex
	last string
	// stamp is the workspace's stamp taken just before the last snapshot
	// was recorded, when stamped.
	stamp   stamp
	stamped bool
	list    map[string]int64
	newest  string
	// stopPrune stops the pruning of the shadow, nil when none runs; it
	// is Shadows.mu's.
	stopPrune func()
}

var _ albedo.Checkpoints = (*Shadows)(nil)

// ErrNoGit says that no git binary is on PATH.
var ErrNoGit = errors.New("no git on PATH: checkpoints are off")

// New returns the shadows kept under dir, made when needed, with limits
// (zero fields take DefaultLimits'). It fails with ErrNoGit when git is
// not on PATH.
func New(dir string, limits Limits) (*Shadows, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrNoGit
	}
	def := DefaultLimits()
	if limits.MaxFiles <= 0 {
		limits.MaxFiles = def.MaxFiles
	}
	if limits.MaxFileBytes <= 0 {
		limits.MaxFileBytes = def.MaxFileBytes
	}
	if limits.Timeout <= 0 {
		limits.Timeout = def.Timeout
	}
	if limits.KeepDays <= 0 {
		limits.KeepDays = def.KeepDays
	}
	if limits.KeepSnapshots <= 0 {
		limits.KeepSnapshots = def.KeepSnapshots
	}
	return &Shadows{git: git, dir: dir, limits: limits, now: time.Now, states: map[string]*state{}}, nil
}

// unsafeName matches what a folder's name may not keep in a shadow's name.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Key names the shadow repository of a workspace: the first 16 hex digits
// of the SHA-256 of its real path, then its last element.
func Key(realPath string) string {
	sum := sha256.Sum256([]byte(realPath))
	base := unsafeName.ReplaceAllString(filepath.Base(realPath), "_")
	if len(base) > 40 {
		base = base[:40]
	}
	return hex.EncodeToString(sum[:8]) + "-" + strings.Trim(base, ".")
}

// open locks the workspace's shadow, made when missing, and returns it
// with the function that unlocks it.
func (s *Shadows) open(ctx context.Context, workspace string) (*shadow, func(), error) {
	real, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("find the workspace %s: %w", workspace, err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, nil, fmt.Errorf("find the workspace %s: %w", workspace, err)
	}
	key := Key(real)
	s.mu.Lock()
	st := s.states[key]
	if st == nil {
		st = &state{}
		s.states[key] = st
	}
	if st.stopPrune != nil {
		st.stopPrune()
	}
	s.mu.Unlock()
	st.mu.Lock()
	sh := &shadow{git: s.git, dir: filepath.Join(s.dir, key), workspace: real, state: st}
	if err := sh.ensure(ctx); err != nil {
		st.mu.Unlock()
		return nil, nil, err
	}
	return sh, st.mu.Unlock, nil
}

// ensure makes the shadow repository when it is missing.
func (sh *shadow) ensure(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(sh.dir, "HEAD")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(sh.dir), 0o700); err != nil {
		return fmt.Errorf("make the checkpoints folder: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(sh.dir), ".init-")
	if err != nil {
		return fmt.Errorf("make a shadow repository: %w", err)
	}
	defer os.RemoveAll(tmp)
	init := &shadow{git: sh.git, dir: tmp}
	if _, err := init.run(ctx, nil, "init", "-q", "--bare", "--template="); err != nil {
		return fmt.Errorf("make the shadow repository of %s: %w", sh.workspace, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "workspace"), []byte(sh.workspace+"\n"), 0o600); err != nil {
		return fmt.Errorf("make the shadow repository of %s: %w", sh.workspace, err)
	}
	if err := os.Rename(tmp, sh.dir); err != nil && !errors.Is(err, fs.ErrExist) {
		if _, serr := os.Stat(filepath.Join(sh.dir, "HEAD")); serr == nil {
			return nil
		}
		return fmt.Errorf("make the shadow repository of %s: %w", sh.workspace, err)
	}
	return nil
}
