package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"
)

func runSessions(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "sessions")
	asJSON := fs.Bool("json", false, "print the sessions as a JSON array")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"sessions takes no arguments"}
	}
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	sessions, err := c.Sessions(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sessions)
	}
	if len(sessions) == 0 {
		fmt.Fprintln(e.stdout, "no sessions yet: start one with 'albedo new' or 'albedo'")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tUPDATED\tPROVIDER/MODEL\tTITLE\tWORKSPACE")
	for _, s := range sessions {
		title := s.Title
		if s.Name != "" {
			title = s.Name + ": " + title
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s/%s\t%s\t%s\n", s.ID, s.Stage, s.Updated().Format(time.DateTime), s.Provider, s.Model, clip(title, 48), s.Workspace)
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
