package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func runDiff(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "diff")
	patch := fs.Bool("patch", false, "print each file's patch after the list")
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	if err := parse(fs, interspersed(args, "patch", "json")); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 3 {
		return usageError{"diff needs SESSION, then optionally FROM and TO (transcript item ids)"}
	}
	var r wire.DiffRange
	for i, seq := range []**int64{&r.From, &r.To} {
		if fs.NArg() <= i+1 {
			break
		}
		n, err := strconv.ParseInt(fs.Arg(i+1), 10, 64)
		if err != nil || n < 0 {
			return usageError{fmt.Sprintf("FROM and TO must be transcript item ids, not %q", fs.Arg(i+1))}
		}
		*seq = &n
	}
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	id, err := findSession(ctx, c, fs.Arg(0))
	if err != nil {
		return err
	}
	d, err := c.Diff(ctx, id, r)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, d)
	}
	if len(d.Files) == 0 {
		fmt.Fprintf(e.stdout, "no file changed from %d to %d\n", d.From, d.To)
	}
	for _, f := range d.Files {
		counts := fmt.Sprintf("+%d -%d", f.Added, f.Deleted)
		if f.Binary {
			counts = "binary"
		}
		fmt.Fprintf(e.stdout, "%-8s %-12s %s\n", f.Status, counts, f.Path)
	}
	if *patch {
		for _, f := range d.Files {
			fmt.Fprint(e.stdout, f.Patch)
		}
	}
	return nil
}
