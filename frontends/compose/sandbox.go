package compose

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/albedo-agent/albedo/adapters/landlock"
	"github.com/albedo-agent/albedo/adapters/pykernel"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// newSandbox returns the sandbox of the default kernel: the policy of the
// home's extensions.json, read at every kernel start, hiding the home.
func newSandbox(opts Options, dir string) *landlock.Sandbox {
	if dir == "" {
		dir, _ = home.Dir()
	}
	return landlock.New(landlock.Options{
		Helper: opts.SandboxHelper,
		Policy: func(context.Context) (albedo.SandboxPolicy, []string) {
			if dir == "" {
				return albedo.DefaultSandboxPolicy(), nil
			}
			return readSandboxPolicy(dir)
		},
		Home: dir,
		ABI:  opts.LandlockABI,
	})
}

// confine adapts a sandbox to the kernel's hook.
// It logs a refusal, and a kernel confined short of its policy.
func confine(sb *landlock.Sandbox, log *slog.Logger) func(context.Context, pykernel.Launch) (pykernel.Launch, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, l pykernel.Launch) (pykernel.Launch, error) {
		c, err := sb.Confine(ctx, landlock.Start{SessionID: l.SessionID, Workspace: l.Workspace, Argv: l.Argv, Env: l.Env, Own: l.Writable})
		if err != nil {
			log.Warn("python kernel refused by the sandbox", "session", l.SessionID, "err", err)
			return pykernel.Launch{}, err
		}
		if st := c.Status; len(st.Problems) > 0 || len(st.NotEnforced) > 0 {
			log.Warn("python kernel sandboxed short of its policy", "session", l.SessionID,
				"mode", st.Policy.Mode, "not_enforced", st.NotEnforced, "problems", st.Problems)
		}
		l.Argv, l.Env, l.Release, l.PIDNamespace = c.Argv, c.Env, c.Release, c.PIDNamespace
		return l, nil
	}
}

// sandboxExtension is the key of the sandbox policy in extensions.json.
const sandboxExtension = "sandbox"

// readSandboxPolicy reads the sandbox policy from extensions.json in dir,
// with the problems of its settings. A file that cannot be read gives the
// default policy and says so.
func readSandboxPolicy(dir string) (albedo.SandboxPolicy, []string) {
	ext, err := home.ReadExtensions(dir)
	if err != nil {
		return albedo.DefaultSandboxPolicy(), []string{err.Error() + "; using the default sandbox"}
	}
	return parseSandboxPolicy(ext[sandboxExtension])
}

// hiddenPaths returns what the daemon opens nothing under on the model's
// behalf, whatever the sandbox mode: the home dir ("" for none), the
// default albedo home ~/.albedo, the default credentials and the policy's
// hidden paths, "~/" meaning the user's home.
func hiddenPaths(dir string) func(context.Context) []string {
	return func(context.Context) []string {
		user, _ := os.UserHomeDir()
		names := append([]string{"~/.albedo"}, albedo.DefaultHiddenPaths...)
		if dir != "" {
			policy, _ := readSandboxPolicy(dir)
			names = append(append(names, policy.Hidden...), dir)
		}
		out := make([]string, 0, len(names))
		for _, name := range names {
			if rest, ok := strings.CutPrefix(name, "~/"); ok {
				if user == "" {
					continue
				}
				name = filepath.Join(user, rest)
			}
			out = append(out, name)
		}
		return out
	}
}
