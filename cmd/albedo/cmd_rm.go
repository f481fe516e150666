package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
)

func runRm(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "rm")
	yes := fs.Bool("yes", false, "delete without asking")
	c, ids, err := sessionTargets(ctx, e, fs, args, "yes", "y")
	if err != nil {
		return err
	}
	answers := bufio.NewReader(e.stdin)
	var failed []string
	for _, id := range ids {
		d, err := c.Session(ctx, id, 0)
		if err != nil {
			return err
		}
		if d.Running {
			fmt.Fprintf(e.stderr, "albedo rm: session %s is running a turn: interrupt it first (it was not deleted)\n", id)
			failed = append(failed, id)
			continue
		}
		if !*yes {
			fmt.Fprintf(e.stderr, "delete session %s (%s) and its whole transcript? [y/N] ", id, label(d.Session))
			line, _ := answers.ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
				fmt.Fprintf(e.stderr, "kept %s\n", id)
				continue
			}
		}
		if err := c.DeleteSession(ctx, id); err != nil {
			if wire.ErrorCode(err) == wire.CodeBusy {
				fmt.Fprintf(e.stderr, "albedo rm: session %s is running a turn: interrupt it first (it was not deleted)\n", id)
				failed = append(failed, id)
				continue
			}
			return err
		}
		fmt.Fprintf(e.stdout, "deleted %s\n", id)
	}
	if len(failed) > 0 {
		return fmt.Errorf("not deleted, still running: %s", strings.Join(failed, ", "))
	}
	return nil
}

func runArchive(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "archive")
	undo := fs.Bool("undo", false, "bring archived sessions back to the listing")
	c, ids, err := sessionTargets(ctx, e, fs, args, "undo")
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := c.SetArchived(ctx, id, !*undo); err != nil {
			return err
		}
		if *undo {
			fmt.Fprintf(e.stdout, "restored %s\n", id)
		} else {
			fmt.Fprintf(e.stdout, "archived %s\n", id)
		}
	}
	return nil
}

// sessionTargets parses the arguments of a command that acts on SESSION
// arguments (boolFlags may come among them), dials the daemon and resolves
// every session as findSession does, each once, before anything is
// changed: one unknown session changes nothing.
func sessionTargets(ctx context.Context, e *env, fs *flag.FlagSet, args []string, boolFlags ...string) (*client.Client, []string, error) {
	if err := parse(fs, interspersed(args, boolFlags...)); err != nil {
		return nil, nil, err
	}
	if fs.NArg() == 0 {
		return nil, nil, usageError{fs.Name() + " needs at least one SESSION"}
	}
	c, err := e.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	for _, ref := range fs.Args() {
		id, err := findSession(ctx, c, ref)
		if err != nil {
			return nil, nil, err
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return c, ids, nil
}

// label names a session for people: its name, else its title.
func label(s wire.Session) string {
	if s.Name != "" {
		return s.Name
	}
	return clip(s.Title, 60)
}

// interspersed moves the boolean flags named among the arguments to the
// front, so that "rm ID --yes" reads like "rm --yes ID".
func interspersed(args []string, names ...string) []string {
	var flagArgs, rest []string
	for _, a := range args {
		name := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") && slices.Contains(names, name) {
			flagArgs = append(flagArgs, a)
		} else {
			rest = append(rest, a)
		}
	}
	return append(flagArgs, rest...)
}
