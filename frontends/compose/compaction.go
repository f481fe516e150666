package compose

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// compactionFile is the compaction settings of the home's extensions.json,
// read again whenever the file changed, so that an edit applies from the
// next model request without a restart.
type compactionFile struct{ ext *home.WatchedExtensions }

// compaction returns the compaction settings of the home dir, nil (the
// defaults) for no home.
func compaction(dir string) albedo.CompactionSource {
	if dir == "" {
		return nil
	}
	return compactionFile{home.WatchExtensions(dir)}
}

// CompactionSettings implements albedo.CompactionSource. A file or member
// that cannot be read leaves the defaults and a problem the session's
// glances and /context show.
func (f compactionFile) CompactionSettings(context.Context) albedo.CompactionSettings {
	ext, err := f.ext.Read()
	if err != nil {
		return albedo.CompactionSettings{Problem: "compaction settings ignored: " + err.Error(), Origin: home.ExtensionsFile}
	}
	set, err := ext.Compaction()
	if err != nil {
		return albedo.CompactionSettings{Problem: "compaction settings ignored: " + err.Error(), Origin: home.ExtensionsFile}
	}
	return albedo.CompactionSettings{TriggerPercent: set.TriggerPercent, TailPercent: set.TailPercent, Origin: home.ExtensionsFile}
}
