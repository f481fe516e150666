package landlock

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// grant is one rule: access to a file or a folder and all beneath it.
type grant struct {
	Path  string
	Write bool
	// Dir is true for a folder, whose rule may carry folder rights.
	Dir bool
}

// carve grants access to root and everything beneath it except the
// hidden paths, appending the grants to out.
//
// Landlock cannot deny a path below a granted folder, so a folder that
// holds a hidden path is not granted itself: carve grants each of its
// entries instead, recursing into the entry that leads to the hidden path,
// and granting nothing for the hidden path itself. For /root/.ssh hidden
// under root "/", that grants /bin, /etc, /usr, ... and, inside /root,
// every entry but .ssh. Symbolic links among the entries are skipped: a
// rule on a link would grant its target, which may be hidden, and what a
// link points to is reachable through the target's own grant anyway. A
// folder that cannot be listed is not granted at all.
//
// Paths must be absolute, clean and free of symbolic links.
func carve(root string, write bool, hidden []string, out []grant) []grant {
	if covered(root, hidden) {
		return out
	}
	if !holdsHidden(root, hidden) {
		info, err := os.Stat(root)
		if err != nil {
			return out
		}
		return append(out, grant{Path: root, Write: write, Dir: info.IsDir()})
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		child := filepath.Join(root, e.Name())
		switch {
		case covered(child, hidden):
		case e.IsDir() && holdsHidden(child, hidden):
			out = carve(child, write, hidden, out)
		default:
			out = append(out, grant{Path: child, Write: write, Dir: e.IsDir()})
		}
	}
	return out
}

// covered reports whether path is a hidden path or lies beneath one.
func covered(path string, hidden []string) bool {
	return slices.ContainsFunc(hidden, func(h string) bool { return within(path, h) })
}

// holdsHidden reports whether a hidden path lies strictly beneath dir.
func holdsHidden(dir string, hidden []string) bool {
	return slices.ContainsFunc(hidden, func(h string) bool { return h != dir && within(h, dir) })
}

// within reports whether path is dir or lies beneath it.
func within(path, dir string) bool {
	if path == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(path, dir+"/")
}

// realPath resolves the symbolic links of an absolute path; for a path
// that does not exist, those of its longest existing prefix.
func realPath(path string) string {
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	parent := filepath.Dir(path)
	if parent == path {
		return path
	}
	return filepath.Join(realPath(parent), filepath.Base(path))
}
