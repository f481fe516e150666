package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/albedo-agent/albedo/frontends/client"
)

// vents is "albedo vents": the vent ledger's subcommands.
func vents() group {
	return group{name: "vents", note: "A vent ID may be written 3 or #3.", subs: []subcommand{
		{"list", "albedo vents [list] [--json] [--limit N]", "list vents, newest first", listVents},
		{"show", "albedo vents show [--json] ID", "show a vent in full", showVent},
		{"reply", "albedo vents reply ID TEXT", "answer a vent: its session gets the reply on its next turn", replyVent},
		{"dismiss", "albedo vents dismiss ID", "close a vent without resolving it", dismissVent},
		{"delete", "albedo vents delete ID", "remove a vent from the ledger", deleteVent},
	}}
}

// ventArgs parses a vents subcommand's flags and checks that it got at
// least n arguments (exactly n unless text may follow; want says what in
// words), then dials.
func ventArgs(ctx context.Context, e *env, fs *flag.FlagSet, args []string, n int, text bool, want string) (*client.Client, error) {
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() < n || !text && fs.NArg() > n {
		return nil, usageError{fmt.Sprintf("%s takes %s", fs.Name(), want)}
	}
	return e.dial(ctx)
}

// ventID reads a vent id as the user wrote it.
func ventID(s string) string { return strings.TrimPrefix(strings.TrimSpace(s), "#") }

func listVents(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	asJSON := fs.Bool("json", false, "print the vents as a JSON array")
	limit := fs.Int("limit", 50, "show at most `N` vents")
	c, err := ventArgs(ctx, e, fs, args, 0, false, "no arguments")
	if err != nil {
		return err
	}
	page, err := c.Vents(ctx, *limit, "")
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, page.Items)
	}
	if len(page.Items) == 0 {
		fmt.Fprintln(e.stdout, "no vents: the ledger is empty")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tTOPIC\tFILED\tSESSION\tTITLE")
	for _, v := range page.Items {
		session := v.SessionName
		if session == "" {
			session = clip(v.Session(), 12)
		}
		fmt.Fprintf(tw, "#%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.Status, v.Topic, v.Created().Format(time.DateTime), session, clip(firstLine(v.Title), 60))
	}
	return tw.Flush()
}

func showVent(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	asJSON := fs.Bool("json", false, "print the vent as JSON")
	c, err := ventArgs(ctx, e, fs, args, 1, false, "one vent ID")
	if err != nil {
		return err
	}
	v, err := c.Vent(ctx, ventID(fs.Arg(0)))
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, v)
	}
	fmt.Fprintf(e.stdout, "#%s %s\n%s · %s · filed %s\n", v.ID, v.Title, v.Status, v.Topic, v.Created().Format(time.DateTime))
	session := v.Session()
	switch {
	case v.SessionName != "" && v.SessionTitle != "":
		session = fmt.Sprintf("%s “%s” (%s)", v.SessionName, v.SessionTitle, session)
	case v.SessionName != "":
		session = v.SessionName + " (" + session + ")"
	case v.SessionTitle != "":
		session = "“" + v.SessionTitle + "” (" + session + ")"
	}
	for _, f := range []struct{ name, value string }{
		{"Message", v.Message}, {"Suggestion", v.Suggestion}, {"Session", session}, {"Workspace", v.Workspace},
		{"Reply", v.Reply}, {"Resolution", v.Resolution},
	} {
		if strings.TrimSpace(f.value) != "" {
			fmt.Fprintf(e.stdout, "\n%s:\n%s\n", f.name, indent(f.value))
		}
	}
	return nil
}

func replyVent(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	c, err := ventArgs(ctx, e, fs, args, 2, true, "a vent ID and the reply")
	if err != nil {
		return err
	}
	id, text := ventID(fs.Arg(0)), strings.Join(fs.Args()[1:], " ")
	r, err := c.ReplyVent(ctx, id, text)
	if err != nil {
		return err
	}
	if r.Queued() {
		fmt.Fprintf(e.stdout, "replied to #%s: session %s gets the reply on its next turn\n", id, r.Vent.Session())
	} else {
		fmt.Fprintf(e.stdout, "replied to #%s: the filing session is gone, the reply is kept\n", id)
	}
	return nil
}

func dismissVent(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	c, err := ventArgs(ctx, e, fs, args, 1, false, "one vent ID")
	if err != nil {
		return err
	}
	v, err := c.DismissVent(ctx, ventID(fs.Arg(0)))
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "dismissed #%s\n", v.ID)
	return nil
}

func deleteVent(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	c, err := ventArgs(ctx, e, fs, args, 1, false, "one vent ID")
	if err != nil {
		return err
	}
	id := ventID(fs.Arg(0))
	if err := c.DeleteVent(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "deleted #%s\n", id)
	return nil
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// indent indents every line of text by two spaces.
func indent(text string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n  ")
}
