package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/console"
)

func runAttach(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "attach")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError{"attach takes at most one session"}
	}
	if !e.interactive() {
		return fmt.Errorf("attach needs a terminal: use 'albedo run --session ID' to script a session")
	}
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	id, err := findSession(ctx, c, fs.Arg(0))
	if err != nil {
		return err
	}
	return openConsole(ctx, e, console.Options{Session: id})
}

// findSession resolves what the user called a session: its id, its name,
// or a prefix of its id that only it has. An empty ref means the most
// recently updated session.
func findSession(ctx context.Context, c *client.Client, ref string) (string, error) {
	// Archived sessions answer to their id or name too; only the default
	// leaves them out.
	sessions, _, err := c.FindSessions(ctx, wire.SessionFilter{Archived: "all"})
	if err != nil {
		return "", err
	}
	if ref == "" {
		sessions = slices.DeleteFunc(sessions, func(s wire.Session) bool { return s.Archived })
		if len(sessions) == 0 {
			return "", fmt.Errorf("no sessions yet: run 'albedo' in a project folder to start one")
		}
		latest := slices.MaxFunc(sessions, func(a, b wire.Session) int { return cmp.Compare(a.UpdatedAt, b.UpdatedAt) })
		return latest.ID, nil
	}
	var byName, byPrefix []string
	for _, s := range sessions {
		switch {
		case s.ID == ref:
			return s.ID, nil
		case s.Name == ref:
			byName = append(byName, s.ID)
		case strings.HasPrefix(s.ID, ref):
			byPrefix = append(byPrefix, s.ID)
		}
	}
	for _, ids := range [][]string{byName, byPrefix} {
		switch len(ids) {
		case 0:
			continue
		case 1:
			return ids[0], nil
		}
		return "", fmt.Errorf("%q could be any of %s: say which", ref, strings.Join(ids, ", "))
	}
	return "", fmt.Errorf("no session %q ('albedo sessions' lists them)", ref)
}
