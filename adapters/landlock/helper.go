package landlock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// HelperCommand is the hidden subcommand of the albedo binary that runs
// HelperMain.
const HelperCommand = "sandbox-exec"

// HelperMain is the sandbox helper: with args "SPEC -- PROGRAM ARGS..." it
// restricts this process as SPEC says and execs PROGRAM, which inherits
// the restriction, with the environment as it is. It returns only on
// failure, with exit status 126 after saying why on stderr; nothing of
// PROGRAM has run then. Started as the first process of a PID namespace,
// it supervises that namespace instead (see superviseNamespace) and returns
// the kernel's exit status.
func HelperMain(args []string, stderr io.Writer) int {
	if namespaceInit() && len(args) >= 3 && args[1] == "--" {
		spec, err := decodeSpec(args[0])
		if err != nil {
			fmt.Fprintf(stderr, "albedo sandbox: %v\n", err)
			return 126
		}
		return superviseNamespace(spec, stderr)
	}
	if err := helper(args); err != nil {
		fmt.Fprintf(stderr, "albedo sandbox: %v\n", err)
		return 126
	}
	return 0 // not reached: exec replaced the process
}

func helper(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return errors.New("usage: albedo " + HelperCommand + " SPEC -- PROGRAM [ARGS...]")
	}
	spec, err := decodeSpec(args[0])
	if err != nil {
		return err
	}
	own := setUpMounts(spec)
	if !spec.Off {
		if err := applyLimits(spec, own); err != nil {
			return err
		}
	}
	program, err := exec.LookPath(args[2])
	if err != nil {
		return fmt.Errorf("finding %s: %w", args[2], err)
	}
	return execConfined(spec, program, args[2:], os.Environ())
}
