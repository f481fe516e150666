// Command albedo is the albedo coding-agent daemon, its CLI and its
// console, in one binary. Run "albedo help" for the commands.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/albedo-agent/albedo/adapters/landlock"
)

// version is albedo's version, set at build time with -ldflags.
var version = "dev"

// command is one subcommand of the CLI.
type command struct {
	name    string
	usage   string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
	// lasting marks commands that keep running: Ctrl-C or SIGTERM cancel
	// their context instead of ending the process. The other commands are
	// one request each, whose answer leaves in one write, and setting up
	// signal handling would cost them more than the request.
	lasting bool
}

// env is what every command gets: its streams and the albedo home.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// home is the albedo home; empty until a command asks for it.
	home string
	// person says stdout is a terminal (read before it is buffered).
	person bool
}

func commands() []command {
	return []command{
		{"console", "albedo console [--new]", "open the console: the session picker, or with --new (plain 'albedo') a new session here", runConsole, true},
		{"attach", "albedo attach [SESSION]", "open the console on a session (default: the most recent one)", runAttach, true},
		{"run", "albedo run [OPTIONS] [PROMPT]", "send PROMPT (or stdin) and print the answer; non-zero exit when the turn fails", runRun, true},
		{"vents", "albedo vents [show|reply|dismiss|delete]", "list and triage the vents models filed", vents().run, false},
		{"sessions", "albedo sessions [--all|--archived] [--search Q] [-n N] [--json]", "list sessions (starts the daemon when none runs)", runSessions, false},
		{"rm", "albedo rm [--yes] SESSION...", "delete sessions and their transcripts (asks first unless --yes; refuses a running one)", runRm, false},
		{"archive", "albedo archive [--undo] SESSION...", "archive sessions: 'albedo sessions' leaves them out (--undo brings them back)", runArchive, false},
		{"rewind", "albedo rewind [--dry-run] [--force] [--fork] SESSION CHECKPOINT", "put back the files a session's cells changed after CHECKPOINT (a transcript item id); --dry-run shows the plan", runRewind, false},
		{"diff", "albedo diff [--patch] [--json] SESSION [FROM [TO]]", "list the files that differ between two checkpoints (transcript item ids; default: the start and the last item) with their line counts; --patch prints the patches", runDiff, false},
		{"new", "albedo new [WORKSPACE]", "create a session in WORKSPACE (default: the current folder) and print it as JSON", runNew, false},
		{"store", "albedo store copy [--from STORE] --to STORE", "copy every session, transcript, vent and ledger row of a stopped home into another store (sqlite, postgresql or a postgres:// URL) and verify the copy", runStore, true},
		{"mcp", "albedo mcp [list|approve|restart|logs]", "show the MCP servers of the workspace; approve a repository's own server, restart one, read its stderr", mcp().run, false},
		{"web", "albedo web [--print-url|--revoke]", "open the web page in a browser, logged in by a one-time address (--print-url prints it; --revoke logs every browser out)", runWeb, false},
		{"daemon", "albedo daemon", "run the daemon in the foreground, for service managers", runDaemon, true},
		{"login", "albedo login [--name N --base-url URL --model M --protocol P]", "add or update a model provider: asks for what is not given; the key is read from a prompt or stdin", runLogin, false},
		{"model", "albedo model [[PROVIDER] MODEL]", "choose the provider and model new sessions use; alone, show them and the configured providers", runModel, false},
		{"help", "albedo help [COMMAND]", "explain a command", nil, false},
	}
}

// usageError is a mistake in how a command was called (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	// The sandbox helper runs before anything else: it confines itself and
	// becomes a kernel's interpreter (see adapters/landlock).
	if len(os.Args) > 1 && os.Args[1] == landlock.HelperCommand {
		os.Exit(landlock.HelperMain(os.Args[2:], os.Stderr))
	}
	os.Exit(run(context.Background(), &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

// run runs the CLI and returns its exit status.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		if !e.interactive() {
			printUsage(e.stdout)
			return 0
		}
		args = []string{"console", "--new"}
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "--help", "help":
		if len(rest) > 0 {
			if c, ok := find(rest[0]); ok && c.run != nil {
				return run(ctx, e, []string{c.name, "--help"})
			}
		}
		printUsage(e.stdout)
		return 0
	case "-v", "--version", "version":
		fmt.Fprintln(e.stdout, "albedo", version)
		return 0
	}
	c, ok := find(name)
	if !ok || c.run == nil {
		fmt.Fprintf(e.stderr, "albedo: unknown command %q\n\n", name)
		printUsage(e.stderr)
		return 2
	}
	if c.lasting {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	} else {
		// One request, one answer: it leaves in one write, not a write per
		// cell of a table.
		e.person = isTerminal(e.stdout)
		out := bufio.NewWriter(e.stdout)
		defer out.Flush()
		e.stdout = out
	}
	err := c.run(ctx, e, rest)
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "albedo %s: %v\nusage: %s\n", c.name, err, c.usage)
		return 2
	default:
		fmt.Fprintf(e.stderr, "albedo %s: %v\n", c.name, err)
		return 1
	}
}

func find(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "albedo: a coding agent that lives in a local daemon.")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands() {
		if len(c.usage) > 34 {
			fmt.Fprintf(w, "  %s\n  %-34s %s\n", c.usage, "", c.summary)
			continue
		}
		fmt.Fprintf(w, "  %-34s %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(w, "\nEnvironment: ALBEDO_HOME (default ~/.albedo), ALBEDO_PORT, ALBEDO_PARENT_PID, ALBEDO_IDLE_SECONDS,\nALBEDO_KERNEL_WARMUP, ALBEDO_PROVIDER_IDLE_SECONDS, ALBEDO_LANDLOCK_ABI,\nALBEDO_ALLOW_ANY_WORKSPACE, ALBEDO_STORE_URL, ALBEDO_NODE, ALBEDO_LEASE_SECONDS,\nALBEDO_WORKSPACE_MAP, ALBEDO_ALLOWED_HOSTS.")
	fmt.Fprintln(w, "Run 'albedo COMMAND --help' for a command's options.")
}

// flags returns a flag set for a command that prints its help on stdout.
func flags(e *env, c string) *flag.FlagSet {
	cmd, _ := find(c)
	fs := flag.NewFlagSet(c, flag.ContinueOnError)
	fs.SetOutput(e.stdout)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "usage: %s\n\n%s\n", cmd.usage, cmd.summary)
		printOptions(e.stdout, fs)
	}
	return fs
}

// printOptions lists a command's flags, if it has any, as docs/console.md
// writes them, with two dashes (the flag package accepts one or two).
func printOptions(w io.Writer, fs *flag.FlagSet) {
	heading := "\nOptions:\n"
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprint(w, heading)
		heading = ""
		name, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if name != "" {
			head += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" {
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", head, usage)
	})
}

// parse parses a command's flags; help is flag.ErrHelp, a mistake a
// usageError.
func parse(fs *flag.FlagSet, args []string) error {
	// The flag package prints usage itself on -help and on mistakes, and
	// its errors: silence it while parsing, then print help once.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return err
	}
	if err != nil {
		return usageError{err.Error()}
	}
	return nil
}
