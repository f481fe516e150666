package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func runSessions(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "sessions")
	asJSON := fs.Bool("json", false, "print the sessions as a JSON array")
	all := fs.Bool("all", false, "list archived sessions too")
	archived := fs.Bool("archived", false, "list archived sessions only")
	search := fs.String("search", "", "list the sessions whose title or name contains `Q` (any case), or whose id starts with it")
	limit := fs.Int("n", 0, "list at most `N` sessions, the most recent")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"sessions takes no arguments"}
	}
	if *all && *archived {
		return usageError{"--all and --archived exclude each other"}
	}
	if *limit < 0 {
		return usageError{"-n takes a positive number"}
	}
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	f := wire.SessionFilter{Query: *search, Limit: *limit}
	switch {
	case *all:
		f.Archived = "all"
	case *archived:
		f.Archived = "true"
	}
	sessions, _, err := c.FindSessions(ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, sessions)
	}
	if len(sessions) == 0 {
		if *all || *archived || *search != "" {
			fmt.Fprintln(e.stdout, "no sessions match")
			return nil
		}
		fmt.Fprintln(e.stdout, "no sessions yet: start one with 'albedo new' or 'albedo'")
		return nil
	}
	return writeSessions(e.stdout, sessions)
}

// writeSessions prints sessions as a table; a NODE column, naming the
// daemon running each session's turn, shows when any listed session has
// one (daemons sharing a PostgreSQL store).
func writeSessions(w io.Writer, sessions []wire.Session) error {
	nodes := slices.ContainsFunc(sessions, func(s wire.Session) bool { return s.Node != "" })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "ID\tSTATE\tUPDATED\tPROVIDER/MODEL\tTITLE\tWORKSPACE"
	if nodes {
		head = "ID\tSTATE\tNODE\tUPDATED\tPROVIDER/MODEL\tTITLE\tWORKSPACE"
	}
	fmt.Fprintln(tw, head)
	for _, s := range sessions {
		title := s.Title
		if s.Name != "" {
			title = s.Name + ": " + title
		}
		if s.Archived {
			title = "[archived] " + title
		}
		state := s.Stage
		if nodes {
			node := s.Node
			if node == "" {
				node = "-"
			}
			state += "\t" + node
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s/%s\t%s\t%s\n", s.ID, state, s.Updated().Format(time.DateTime), s.Provider, s.Model, clip(title, 48), s.Workspace)
	}
	return tw.Flush()
}

// clip shortens s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
