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
