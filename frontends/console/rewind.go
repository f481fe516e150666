package console

import (
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// rewindNotice says what a /rewind did, or for its preview would do and
// how to go on.
func rewindNotice(at int64, r wire.Rewound) string {
	paths := func(list []wire.Change) string {
		names := make([]string, len(list))
		for i, c := range list {
			names[i] = c.Path
		}
		return strings.Join(names, ", ")
	}
	var b strings.Builder
	switch {
	case len(r.Restored)+len(r.Conflicts)+len(r.Kept) == 0:
		return fmt.Sprintf("no file changed since #%d", at)
	case r.DryRun:
		fmt.Fprintf(&b, "rewinding to #%d would put back: %s", at, paths(r.Restored))
	default:
		fmt.Fprintf(&b, "put back as at #%d: %s", at, paths(r.Restored))
	}
	if len(r.Kept) > 0 {
		fmt.Fprintf(&b, "\nkept (changed outside the session): %s", paths(r.Kept))
	}
	if r.DryRun && len(r.Conflicts) > 0 {
		fmt.Fprintf(&b, "\nchanged by the session and by you, refused unless forced: %s", paths(r.Conflicts))
	}
	switch {
	case r.DryRun && len(r.Conflicts) > 0:
		fmt.Fprintf(&b, "\n/rewind %d force does it, over your edits too", at)
	case r.DryRun:
		fmt.Fprintf(&b, "\n/rewind %d apply does it", at)
	case r.Undo > 0:
		fmt.Fprintf(&b, "\n/rewind %d apply undoes it", r.Undo)
	}
	return b.String()
}

// maxDiffLines bounds the files a /diff lists.
const maxDiffLines = 20

// diffNotice lists what a /diff found changed after a checkpoint.
func diffNotice(at int64, d wire.Diff) string {
	if len(d.Files) == 0 {
		return fmt.Sprintf("no file changed after #%d", at)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "changed after #%d:", at)
	for i, f := range d.Files {
		if i == maxDiffLines {
			fmt.Fprintf(&b, "\n… and %d more (albedo diff lists them all)", len(d.Files)-i)
			break
		}
		counts := fmt.Sprintf("+%d -%d", f.Added, f.Deleted)
		if f.Binary {
			counts = "binary"
		}
		fmt.Fprintf(&b, "\n%s %s (%s)", f.Path, counts, f.Status)
	}
	return b.String()
}
