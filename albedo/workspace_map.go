package albedo

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// WorkspaceMapping maps the workspaces stored under one folder, From (as
// the machine that made the sessions names it), to the same folder on
// this machine, To.
type WorkspaceMapping struct {
	From, To string
}

// WorkspaceMap maps the workspaces of sessions that other machines
// sharing the store made to the folders that hold them here: a daemon
// runs such a session's kernel, and takes its turn over, in the folder
// mapped, while the store keeps the workspace as it was made.
type WorkspaceMap []WorkspaceMapping

// Local returns the folder on this machine of the stored workspace: the
// longest From that is the workspace or holds it is replaced by its To;
// a workspace none holds is its own folder here.
func (m WorkspaceMap) Local(stored string) string {
	best := -1
	for i, w := range m {
		if within(stored, w.From) && (best < 0 || len(w.From) > len(m[best].From)) {
			best = i
		}
	}
	if best < 0 {
		return stored
	}
	return filepath.Join(m[best].To, strings.TrimPrefix(stored, m[best].From))
}

// within reports whether path is folder or inside it.
func within(path, folder string) bool {
	return path == folder || strings.HasPrefix(path, strings.TrimSuffix(folder, "/")+"/")
}

// ParseWorkspaceMap reads a workspace map written as FROM=TO pairs
// separated by colons, as PATH is ("/home/ann/src=/srv/ann:/Users/bob=/srv/bob");
// both sides are absolute paths, and no FROM comes twice. "" is no map.
func ParseWorkspaceMap(text string) (WorkspaceMap, error) {
	var m WorkspaceMap
	for pair := range strings.SplitSeq(text, ":") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		from, to, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("workspace map entry %q is not FROM=TO", pair)
		}
		if !filepath.IsAbs(from) || !filepath.IsAbs(to) {
			return nil, fmt.Errorf("workspace map entry %q: both folders must be absolute paths", pair)
		}
		w := WorkspaceMapping{From: filepath.Clean(from), To: filepath.Clean(to)}
		if slices.ContainsFunc(m, func(x WorkspaceMapping) bool { return x.From == w.From }) {
			return nil, fmt.Errorf("workspace map maps %s twice", w.From)
		}
		m = append(m, w)
	}
	return m, nil
}
