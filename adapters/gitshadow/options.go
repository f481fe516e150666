package gitshadow

import "time"

// Limits bound what snapshots cost. A workspace that goes over MaxFiles or
// Timeout has its snapshots turned off, with the reason kept in its shadow
// repository, until the shadow is removed.
type Limits struct {
	// MaxFiles is the most files a workspace's snapshots may hold: those
	// the shadow's index holds (a repository's first snapshot holds every
	// file its own index tracks) plus those a snapshot finds new or
	// changed.
	MaxFiles int
	// MaxFileBytes is the largest file a snapshot records; larger ones
	// are left as the last snapshot had them.
	MaxFileBytes int64
	// Timeout is the longest a snapshot may take.
	Timeout time.Duration
	// KeepDays and KeepSnapshots bound the snapshots Prune keeps of a
	// workspace: those that stood for its files in the last KeepDays
	// days, at most KeepSnapshots of them, the newest always.
	KeepDays      int
	KeepSnapshots int
}

// DefaultLimits returns the limits extensions.json's "checkpoints" section
// starts from.
func DefaultLimits() Limits {
	return Limits{MaxFiles: 50_000, MaxFileBytes: 5 << 20, Timeout: 20 * time.Second, KeepDays: 30, KeepSnapshots: 2000}
}

// defaultExcludes returns the folders no snapshot holds, beside the
// workspace's own ignore rules: generated and downloaded trees that are
// large and rebuilt rather than edited.
func defaultExcludes() []string {
	return []string{
		"node_modules/", ".venv/", "venv/", "__pycache__/", ".tox/", ".nox/",
		".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".gradle/", ".terraform/",
		"bower_components/", ".next/", ".nuxt/", ".parcel-cache/",
	}
}
