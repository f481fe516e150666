package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

// subcommand is one subcommand of a command that has several, such as
// "albedo vents reply".
type subcommand struct {
	name, usage, summary string
	run                  func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error
}

// group is a command made of subcommands; the first one runs when none is
// named, and its help lists them all, then note.
type group struct {
	name string
	subs []subcommand
	note string
}

// run runs the subcommand args name with the rest of args.
func (g group) run(ctx context.Context, e *env, args []string) error {
	sub := g.subs[0].name
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	if sub == "help" {
		sub, args = g.subs[0].name, []string{"--help"}
	}
	for _, sc := range g.subs {
		if sc.name == sub {
			return sc.run(ctx, e, g.flags(e, sc), args)
		}
	}
	return usageError{fmt.Sprintf("unknown %s command %q", g.name, sub)}
}

// flags returns the flag set of a subcommand, which prints its help on
// stdout.
func (g group) flags(e *env, sc subcommand) *flag.FlagSet {
	fs := flag.NewFlagSet(g.name+" "+sc.name, flag.ContinueOnError)
	fs.SetOutput(e.stdout)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "usage: %s\n\n%s\n", sc.usage, sc.summary)
		if sc.name == g.subs[0].name {
			fmt.Fprintln(e.stdout, "\nCommands:")
			width := 0
			for _, x := range g.subs {
				width = max(width, len(x.usage))
			}
			for _, x := range g.subs {
				fmt.Fprintf(e.stdout, "  %-*s %s\n", width, x.usage, x.summary)
			}
			fmt.Fprintln(e.stdout, "\n"+g.note)
		}
		printOptions(e.stdout, fs)
	}
	return fs
}
