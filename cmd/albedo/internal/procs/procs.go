// Package procs starts the albedo binary on one processor.
//
// Most runs of the binary are a CLI command that sends the daemon one
// request and prints the answer. For those, more processors only mean more
// threads for the runtime to start while the packages initialise, and on
// machines where starting a thread and faulting in its memory is slow
// that is a visible share of the command's time. Importing this package
// lowers GOMAXPROCS to 1 as the program starts; commands that keep running
// (the daemon, the console, run) call Default.
//
// The package imports nothing but runtime, so that its init runs before
// the packages of every dependency outside the standard library (Go
// initialises packages in the order of their import paths, each once its
// imports are). That is also why Default takes the environment variable
// as an argument rather than reading it.
package procs

import "runtime"

func init() {
	runtime.GOMAXPROCS(1)
}

// Default gives the runtime back its default number of processors, which
// follows the machine's CPUs and the process's CPU limit. env is the value
// of the GOMAXPROCS environment variable; a positive number there wins, as
// it would have without this package.
func Default(env string) {
	if n, ok := positive(env); ok {
		runtime.GOMAXPROCS(n)
		return
	}
	runtime.SetDefaultGOMAXPROCS()
}

// positive parses a positive decimal number of at most six digits.
func positive(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0
}
