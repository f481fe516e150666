package compose

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/albedo-agent/albedo/adapters/gitshadow"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// checkpoints returns the snapshots of workspaces that the home's
// extensions.json asks for (on by default), kept under the home; nil
// without a home, when they are off, or when git is not on PATH.
func checkpoints(opts Options, dir string) *gitshadow.Shadows {
	if dir == "" {
		return nil
	}
	ext, err := home.ReadExtensions(dir)
	if err != nil {
		return nil
	}
	settings, err := ext.Checkpoints()
	if err != nil {
		warn(opts, "checkpoint settings ignored", err)
	}
	if settings.Enabled != nil && !*settings.Enabled {
		return nil
	}
	var limits gitshadow.Limits
	if settings.MaxFiles != nil {
		limits.MaxFiles = *settings.MaxFiles
	}
	if settings.MaxFileBytes != nil {
		limits.MaxFileBytes = *settings.MaxFileBytes
	}
	if settings.KeepDays != nil {
		limits.KeepDays = *settings.KeepDays
	}
	if settings.KeepSnapshots != nil {
		limits.KeepSnapshots = *settings.KeepSnapshots
	}
	if settings.TimeoutSeconds != nil {
		limits.Timeout = time.Duration(*settings.TimeoutSeconds * float64(time.Second))
	}
	shadows, err := gitshadow.New(filepath.Join(dir, home.CheckpointsDir), limits)
	if errors.Is(err, gitshadow.ErrNoGit) {
		if opts.Logger != nil {
			opts.Logger.Info("no snapshots of workspaces: git is not on PATH")
		}
		return nil
	}
	if err != nil {
		warn(opts, "no snapshots of workspaces", err)
		return nil
	}
	return shadows
}

// asPort is the shadows as the domain's port: nil for none.
func asPort(s *gitshadow.Shadows) albedo.Checkpoints {
	if s == nil {
		return nil
	}
	return s
}
