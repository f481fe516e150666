package home

import "github.com/albedo-agent/albedo/albedo"

// SandboxExtension is the key of the sandbox policy in extensions.json.
const SandboxExtension = "sandbox"

// ReadSandboxPolicy reads the sandbox policy from extensions.json in dir,
// with the problems of its settings. A file that cannot be read gives the
// default policy and says so.
func ReadSandboxPolicy(dir string) (albedo.SandboxPolicy, []string) {
	ext, err := ReadExtensions(dir)
	if err != nil {
		return albedo.DefaultSandboxPolicy(), []string{err.Error() + "; using the default sandbox"}
	}
	return albedo.ParseSandboxPolicy(ext[SandboxExtension])
}
