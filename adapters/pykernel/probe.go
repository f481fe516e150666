package pykernel

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// probeTimeout bounds the version probe, which a version manager's shim
// or a cold disk can slow down.
const probeTimeout = 30 * time.Second

// probeCode prints the version as kernels report it.
const probeCode = `import sys; print("%d.%d.%d" % sys.version_info[:3])`

// versionPattern is what a probe's answer must look like.
var versionPattern = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// knownVersion is one interpreter's entry in the version cache: the file
// it was learnt from, by modification time and size, and its version.
type knownVersion struct {
	Modified time.Time `json:"modified"`
	Size     int64     `json:"size"`
	Version  string    `json:"version"`
}

// ProbeVersion learns the version of the Python that kernels run by
// default, so that PythonVersion can tell it before any kernel started
// in a workspace. It does not wait: when cacheFile (a JSON file; "" for
// none) holds the version of the interpreter Options.Python names,
// keyed by its real path, modification time and size, that version is
// known when ProbeVersion returns; either way "python3 -I -c" asks the
// interpreter itself in the background, from the root folder (outside
// any workspace) and with a kernel's environment, and the answer
// replaces the cached one and is written back to cacheFile. A failure
// is logged and leaves the version unknown. Close stops the probe.
func (k *Kernels) ProbeVersion(ctx context.Context, cacheFile string) {
	path, stat, ok := k.interpreterFile()
	if ok && cacheFile != "" {
		if v := cachedVersion(cacheFile, path, stat); v != "" {
			k.mu.Lock()
			k.defaultVersion = v
			k.mu.Unlock()
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	p := &background{what: "the python version probe", cancel: cancel, done: make(chan struct{})}
	k.mu.Lock()
	if k.closed || k.probe != nil {
		k.mu.Unlock()
		cancel()
		return
	}
	k.probe = p
	k.mu.Unlock()
	go func() {
		defer close(p.done)
		defer cancel()
		v, err := k.askVersion(ctx)
		if err != nil {
			if ctx.Err() == nil {
				k.opts.Logger.Warn("asking python for its version; the instructions say it once a kernel started", "python", k.opts.Python, "err", err)
			}
			return
		}
		k.mu.Lock()
		k.defaultVersion = v
		k.mu.Unlock()
		k.opts.Logger.Info("python version", "python", k.opts.Python, "version", v)
		if ok && cacheFile != "" {
			if err := storeVersion(cacheFile, path, stat, v); err != nil {
				k.opts.Logger.Warn("remember the python version", "err", err)
			}
		}
	}()
}

// interpreterFile finds the file Options.Python names on the daemon's
// PATH, links resolved, and its details.
func (k *Kernels) interpreterFile() (string, os.FileInfo, bool) {
	found, err := exec.LookPath(k.opts.Python)
	if err != nil {
		return "", nil, false
	}
	path, err := filepath.EvalSymlinks(found)
	if err != nil {
		return "", nil, false
	}
	if path, err = filepath.Abs(path); err != nil {
		return "", nil, false
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", nil, false
	}
	return path, info, true
}

// askVersion runs the interpreter to print its version.
func (k *Kernels) askVersion(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, k.opts.Python, "-I", "-c", probeCode)
	cmd.Dir = string(filepath.Separator)
	cmd.Env = kernelEnv(k.opts.Env)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("run %s: %w", k.opts.Python, err)
	}
	// The probe yields the processor to the daemon's start and first
	// requests (a version manager's shim costs a shell or two).
	yieldProcessor(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("run %s: %w", k.opts.Python, err)
	}
	v := strings.TrimSpace(out.String())
	if !versionPattern.MatchString(v) {
		return "", fmt.Errorf("%s printed %q, not a version", k.opts.Python, v)
	}
	return v, nil
}

// cachedVersion returns the version cacheFile holds for the interpreter
// at path, if the file is still the one it was learnt from.
func cachedVersion(cacheFile, path string, stat os.FileInfo) string {
	known := readVersions(cacheFile)
	e, ok := known[path]
	if !ok || !e.Modified.Equal(stat.ModTime()) || e.Size != stat.Size() || !versionPattern.MatchString(e.Version) {
		return ""
	}
	return e.Version
}

// storeVersion records in cacheFile the version of the interpreter at
// path, keeping the other interpreters' entries.
func storeVersion(cacheFile, path string, stat os.FileInfo, version string) error {
	known := readVersions(cacheFile)
	e := knownVersion{Modified: stat.ModTime(), Size: stat.Size(), Version: version}
	if old, ok := known[path]; ok && old.Modified.Equal(e.Modified) && old.Size == e.Size && old.Version == e.Version {
		return nil
	}
	known[path] = e
	data, err := json.MarshalIndent(known, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the python versions: %w", err)
	}
	return atomicfile.Write(cacheFile, append(data, '\n'), 0o600)
}

// readVersions reads the version cache; a missing or unreadable one is
// empty.
func readVersions(cacheFile string) map[string]knownVersion {
	known := make(map[string]knownVersion)
	data, err := os.ReadFile(cacheFile)
	if err != nil {
		return known
	}
	if json.Unmarshal(data, &known) != nil {
		return make(map[string]knownVersion)
	}
	return known
}
