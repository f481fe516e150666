// Command albedo-sandbox is albedo's sandbox helper on its own: "albedo-sandbox
// SPEC -- PROGRAM ARGS..." confines itself with Landlock as SPEC says and
// execs PROGRAM (see adapters/landlock). The daemon starts each Python
// kernel through it when it lies beside the albedo binary, because a small
// binary starts in a few milliseconds where albedo's own, which works the
// same as "albedo sandbox-exec", pays for the initialisation of everything
// it links.
package main

import (
	"os"

	"github.com/albedo-agent/albedo/adapters/landlock"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == landlock.HelperCommand {
		args = args[1:] // called the way albedo's own binary is
	}
	os.Exit(landlock.HelperMain(args, os.Stderr))
}
