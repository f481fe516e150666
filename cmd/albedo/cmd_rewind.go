package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func runRewind(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "rewind")
	dry := fs.Bool("dry-run", false, "print what would be restored, kept and refused, and change nothing")
	force := fs.Bool("force", false, "restore the files changed outside the session too")
	fork := fs.Bool("fork", false, "also fork the session at the checkpoint (the session itself is left as it is)")
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	if err := parse(fs, interspersed(args, "dry-run", "force", "fork", "json")); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageError{"rewind needs SESSION and CHECKPOINT (a transcript item id, 0 for the start)"}
	}
	seq, err := strconv.ParseInt(fs.Arg(1), 10, 64)
	if err != nil || seq < 0 {
		return usageError{fmt.Sprintf("CHECKPOINT must be a transcript item id, not %q", fs.Arg(1))}
	}
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	id, err := findSession(ctx, c, fs.Arg(0))
	if err != nil {
		return err
	}
	body := wire.Rewind{Checkpoint: &seq, DryRun: *dry, Force: *force}
	if *fork {
		body.Conversation = "fork"
	}
	r, err := c.Rewind(ctx, id, body)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, r)
	}
	verb := "restored"
	if r.DryRun {
		verb = "would restore"
	}
	for _, ch := range r.Restored {
		fmt.Fprintf(e.stdout, "%s %s (%s since)\n", verb, ch.Path, ch.Kind)
	}
	for _, ch := range r.Kept {
		fmt.Fprintf(e.stdout, "kept %s (changed outside the session)\n", ch.Path)
	}
	for _, ch := range r.Conflicts {
		if !*force {
			fmt.Fprintf(e.stdout, "refused %s (changed by the session and outside it; --force restores it)\n", ch.Path)
		}
	}
	if len(r.Restored)+len(r.Kept)+len(r.Conflicts) == 0 {
		fmt.Fprintln(e.stdout, "nothing changed since that checkpoint")
	}
	if r.Session != nil {
		fmt.Fprintf(e.stdout, "forked: %s\n", r.Session.ID)
	}
	if r.Undo > 0 {
		fmt.Fprintf(e.stdout, "undo: albedo rewind %s %d\n", id, r.Undo)
	}
	return nil
}
