package compose

import (
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// compaction returns the compaction settings of the home's
// extensions.json; dir is the home, "" for none. A file or member that
// cannot be read leaves the defaults and a problem the session's glances
// and /context show.
func compaction(dir string) albedo.CompactionSettings {
	if dir == "" {
		return albedo.CompactionSettings{}
	}
	ext, err := home.ReadExtensions(dir)
	if err != nil {
		return albedo.CompactionSettings{Problem: "compaction settings ignored: " + err.Error()}
	}
	set, err := ext.Compaction()
	if err != nil {
		return albedo.CompactionSettings{Problem: "compaction settings ignored: " + err.Error()}
	}
	return albedo.CompactionSettings{TriggerPercent: set.TriggerPercent, TailPercent: set.TailPercent}
}
