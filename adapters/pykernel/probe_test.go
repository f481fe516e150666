package pykernel

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeInterpreter writes an executable script that plays python3 for the
// version probe: body runs with the probe's arguments in "$@".
func fakeInterpreter(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// probeOver waits until the probe ProbeVersion started is over.
func probeOver(t *testing.T, k *Kernels) {
	t.Helper()
	k.mu.Lock()
	p := k.probe
	k.mu.Unlock()
	if p == nil {
		t.Fatal("no probe started")
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the probe did not end")
	}
}

// TestProbeVersionTellsTheVersionBeforeAnyKernel: once the probe is over,
// every workspace gets the interpreter's version, and the cache file
// keeps it under the interpreter's real path.
func TestProbeVersionTellsTheVersionBeforeAnyKernel(t *testing.T) {
	k := newKernels(t, Options{})
	cache := filepath.Join(t.TempDir(), "python.json")
	k.ProbeVersion(context.Background(), cache)
	probeOver(t, k)
	v := k.PythonVersion(context.Background(), t.TempDir())
	if !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("version after the probe = %q", v)
	}
	path, _, ok := k.interpreterFile()
	if !ok {
		t.Fatal("interpreter not found")
	}
	if got := readVersions(cache)[path].Version; got != v {
		t.Errorf("cache holds %q for %s, want %q", got, path, v)
	}
}

// TestProbeVersionAsksOutsideAnyWorkspace: the interpreter is asked with
// -I, from the root folder, with a kernel's environment (no secrets).
func TestProbeVersionAsksOutsideAnyWorkspace(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "seen")
	python := fakeInterpreter(t, `{ pwd; echo "$1"; echo "key=$OPENAI_API_KEY"; } > `+seen+`; echo 3.10.4`)
	k := newKernels(t, Options{Python: python, Env: []string{"PATH=/usr/bin:/bin", "OPENAI_API_KEY=sk-secret"}})
	k.ProbeVersion(context.Background(), "")
	probeOver(t, k)
	if v := k.PythonVersion(context.Background(), t.TempDir()); v != "3.10.4" {
		t.Errorf("version = %q, want 3.10.4", v)
	}
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Fields(string(data)), []string{"/", "-I", "key="}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the probe saw %q, want %q", got, want)
	}
}

// TestProbeVersionCache specifies when a cached version is told at once,
// before the interpreter answers (here it never does).
func TestProbeVersionCache(t *testing.T) {
	cases := []struct {
		name string
		// entry makes the cache entry from the interpreter's details.
		entry func(os.FileInfo) knownVersion
		want  string
	}{
		{"same file", func(i os.FileInfo) knownVersion {
			return knownVersion{Modified: i.ModTime(), Size: i.Size(), Version: "3.99.1"}
		}, "3.99.1"},
		{"file modified since", func(i os.FileInfo) knownVersion {
			return knownVersion{Modified: i.ModTime().Add(-time.Hour), Size: i.Size(), Version: "3.99.1"}
		}, ""},
		{"size changed", func(i os.FileInfo) knownVersion {
			return knownVersion{Modified: i.ModTime(), Size: i.Size() + 1, Version: "3.99.1"}
		}, ""},
		{"not a version", func(i os.FileInfo) knownVersion {
			return knownVersion{Modified: i.ModTime(), Size: i.Size(), Version: "3.99.1\nrm -rf /"}
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			python := fakeInterpreter(t, "exec sleep 1000")
			info, err := os.Stat(python)
			if err != nil {
				t.Fatal(err)
			}
			cache := filepath.Join(t.TempDir(), "python.json")
			data, _ := json.Marshal(map[string]knownVersion{python: c.entry(info)})
			if err := os.WriteFile(cache, data, 0o600); err != nil {
				t.Fatal(err)
			}
			k := newKernels(t, Options{Python: python})
			k.ProbeVersion(context.Background(), cache)
			if v := k.PythonVersion(context.Background(), t.TempDir()); v != c.want {
				t.Errorf("version = %q, want %q", v, c.want)
			}
		})
	}
}

// TestAKernelsVersionWinsOverTheProbe: a workspace whose kernel reported
// a version keeps it, whatever the probe said.
func TestAKernelsVersionWinsOverTheProbe(t *testing.T) {
	k := newKernels(t, Options{})
	ws := t.TempDir()
	run(t, k, "s1", ws, "1")
	k.mu.Lock()
	k.defaultVersion = "2.7.18"
	k.mu.Unlock()
	if v := k.PythonVersion(context.Background(), ws); v == "2.7.18" || v == "" {
		t.Errorf("version of a workspace whose kernel started = %q", v)
	}
	if v := k.PythonVersion(context.Background(), t.TempDir()); v != "2.7.18" {
		t.Errorf("version of another workspace = %q, want the probe's", v)
	}
}
