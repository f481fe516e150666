package main

import (
	"context"
	"fmt"
	"os"

	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/console"
	"golang.org/x/term"
)

func runConsole(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "console")
	fresh := fs.Bool("new", false, "start a new session in the current folder instead of picking one")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"console takes no arguments"}
	}
	opts := console.Options{}
	if *fresh {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find the current folder: %w", err)
		}
		opts.NewSession = wd
	}
	return openConsole(ctx, e, opts)
}

// openConsole runs the console on the terminal and says, once it closes,
// how to come back to the session left open.
func openConsole(ctx context.Context, e *env, opts console.Options) error {
	if !e.interactive() {
		return fmt.Errorf("the console needs a terminal: use 'albedo run' to script a session")
	}
	if opts.Workspace == "" {
		opts.Workspace, _ = os.Getwd()
	}
	opts.Dial = func(ctx context.Context) (*client.Client, error) { return e.dial(ctx) }
	res, err := console.Run(ctx, opts)
	if err != nil {
		return err
	}
	if res.Session != "" {
		fmt.Fprintf(e.stderr, "detached from session %s; it goes on in the daemon (albedo attach %s)\n", res.Session, res.Session)
	}
	return nil
}

// interactive reports whether the CLI talks to a person: stdin and stdout
// are both terminals.
func (e *env) interactive() bool { return isTerminal(e.stdin) && isTerminal(e.stdout) }

// isTerminal reports whether v is a file open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
