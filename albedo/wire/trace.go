package wire

import (
	"path/filepath"
	"strings"
)

// Trace records the files a cell touched.
type Trace struct {
	Activities []Activity `json:"activities"`
	Changes    []Change   `json:"changes"`
	// Checkpoint names the snapshots of the workspace around the cell,
	// when snapshots are on (see docs/checkpoints.md).
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
}

// Checkpoint names two snapshots of a session's workspace: as a step
// found it and as it left it. A step is a cell, or a rewind.
type Checkpoint struct {
	// Before is "" when no snapshot was taken before the step.
	Before string `json:"before,omitempty"`
	After  string `json:"after"`
}

// Activity is one file a cell opened: Kind is "read" or "write".
type Activity struct {
	Kind   string `json:"kind"`
	Target string `json:"target"`
}

// Change is one file a cell created, modified or deleted.
type Change struct {
	Path string `json:"path"`
	// Kind is "created", "modified" or "deleted".
	Kind string `json:"kind,omitempty"`
}

// Read returns the distinct files the cell read, in order.
func (t *Trace) Read() []string {
	if t == nil {
		return nil
	}
	return distinct(t.Activities, func(a Activity) (string, bool) { return a.Target, a.Kind == "read" })
}

// Changed returns the distinct files the cell changed, in order.
func (t *Trace) Changed() []string {
	if t == nil {
		return nil
	}
	return distinct(t.Changes, func(c Change) (string, bool) { return c.Path, true })
}

// distinct returns the paths of the entries that path picks, each once, in
// the order they first come.
func distinct[T any](entries []T, path func(T) (string, bool)) []string {
	var out []string
	seen := make(map[string]bool)
	for _, e := range entries {
		if p, ok := path(e); ok && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Summary says in one line which files the cell read and changed, or ""
// when it touched none: "read a.go · +new.go ~b.go −old.go", a changed
// path marked + when created, ~ when modified and − when deleted. Paths
// under base (the workspace; "" for none) are shown relative to it.
func (t *Trace) Summary(base string) string {
	var parts []string
	if r := t.Read(); len(r) > 0 {
		parts = append(parts, "read "+strings.Join(relative(base, r), ", "))
	}
	if c := t.marked(base); len(c) > 0 {
		parts = append(parts, strings.Join(c, " "))
	}
	return strings.Join(parts, " · ")
}

// changeMarks are the signs Summary puts before changed paths, by kind.
var changeMarks = map[string]string{"created": "+", "modified": "~", "deleted": "−"}

// marked returns the distinct changed paths, in order, each after the sign
// of its change and relative to base.
func (t *Trace) marked(base string) []string {
	if t == nil {
		return nil
	}
	var out []string
	seen := make(map[string]bool)
	for _, c := range t.Changes {
		if seen[c.Path] {
			continue
		}
		seen[c.Path] = true
		out = append(out, changeMarks[c.Kind]+relative(base, []string{c.Path})[0])
	}
	return out
}

// relative rewrites paths under base relative to it.
func relative(base string, paths []string) []string {
	if base == "" {
		return paths
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if rel, err := filepath.Rel(base, p); err == nil && filepath.IsAbs(p) && rel != ".." && !strings.HasPrefix(rel, "../") {
			out[i] = rel
		}
	}
	return out
}
