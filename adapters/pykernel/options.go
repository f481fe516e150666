package pykernel

import (
	"context"
	"log/slog"
	"os"

	"github.com/albedo-agent/albedo/albedo"
)

// DefaultOutputLimit is the default of Options.OutputLimit: 32 KiB, about
// eight thousand tokens, enough for a test run's report while keeping one
// careless print from flooding the model's context.
const DefaultOutputLimit = 32 << 10

// Options configure Kernels. The zero value works.
type Options struct {
	// Python is the interpreter to run, a path or a name looked up on the
	// daemon's PATH when a kernel starts; "python3" when empty. It must be
	// Python 3.9 or newer.
	Python string
	// OnJobEnd is told, in a goroutine of its own, of each background job
	// that ended while nothing read its end (await job, job.exit_code);
	// nil tells no one.
	OnJobEnd func(sessionID string, end albedo.JobEnd)
	// Env is the base environment that kernels take their allowed variables
	// from (see the package documentation); os.Environ() when nil.
	Env []string
	// OutputLimit caps, in bytes, the output kept of one cell, and likewise
	// its value and error; DefaultOutputLimit when zero or negative.
	OutputLimit int
	// Logger receives kernel starts, exits and failures; none when nil.
	Logger *slog.Logger
	// Confine, when set, is called as each kernel starts and returns the
	// launch to run instead: the same interpreter behind a sandbox's
	// helper, say. An error fails the start, and nothing runs. A kernel
	// it confined serves only the workspace it started in: a cell naming
	// another one gets a fresh kernel.
	Confine func(ctx context.Context, l Launch) (Launch, error)
}

// Launch is how a kernel's process starts.
type Launch struct {
	SessionID, Workspace string
	// Argv is the command line, the program first; Env the environment.
	Argv, Env []string
	// Writable are the folders the kernel itself writes (a spool, say),
	// which a sandbox must leave writable.
	Writable []string
	// PIDNamespace asks for a PID namespace of its own, for a launch whose
	// program, as the namespace's first process, runs the kernel and
	// stays to reap and to pass SIGINT on (the sandbox's helper does).
	// Where the machine allows no namespace, the kernel runs without.
	PIDNamespace bool
	// Release, when set, is called once the process has exited (or failed
	// to start).
	Release func()
}

// withDefaults returns o with its zero fields filled in.
func (o Options) withDefaults() Options {
	if o.Python == "" {
		o.Python = "python3"
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.OutputLimit <= 0 {
		o.OutputLimit = DefaultOutputLimit
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
