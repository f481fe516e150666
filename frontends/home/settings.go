package home

import (
	"encoding/json"
	"fmt"
	"time"
)

// CatalogFile is the model catalog in the home.
const CatalogFile = "models.json"

// ModelSettings are the "models" settings of extensions.json: how often
// the model catalog is fetched, and from where.
type ModelSettings struct {
	// Refresh is the time between fetches; zero never fetches, which is
	// also what a home that says nothing gets.
	Refresh time.Duration
	// URL is where the catalog is fetched from; "" means the default.
	URL string
}

// Models reads the "models" settings. A member of the wrong type is an
// error naming it; the settings are then zero (no fetching).
func (e Extensions) Models() (ModelSettings, error) {
	raw, ok := e["models"]
	if !ok {
		return ModelSettings{}, nil
	}
	var doc struct {
		RefreshHours *float64 `json:"refreshHours"`
		URL          string   `json:"url"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return ModelSettings{}, fmt.Errorf("%s: \"models\" must be {\"refreshHours\": number, \"url\": string}: %w", ExtensionsFile, err)
	}
	s := ModelSettings{URL: doc.URL}
	if doc.RefreshHours != nil {
		if *doc.RefreshHours < 0 {
			return ModelSettings{}, fmt.Errorf("%s: \"models.refreshHours\" must not be negative", ExtensionsFile)
		}
		s.Refresh = time.Duration(*doc.RefreshHours * float64(time.Hour))
	}
	return s, nil
}

// InstructionsEnabled reads "instructions": {"enabled": bool}; project
// instructions are on unless it says false.
func (e Extensions) InstructionsEnabled() (bool, error) {
	raw, ok := e["instructions"]
	if !ok {
		return true, nil
	}
	var doc struct {
		Enabled *bool `json:"enabled"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return true, fmt.Errorf("%s: \"instructions\" must be {\"enabled\": bool}: %w", ExtensionsFile, err)
	}
	return doc.Enabled == nil || *doc.Enabled, nil
}

// CompactionSettings are the "compaction" settings of extensions.json as
// written: nil for a member that is absent. Whether the values make sense
// is the domain's to judge.
type CompactionSettings struct {
	TriggerPercent *float64
	TailPercent    *float64
}

// Compaction reads "compaction": {"triggerPercent": number,
// "tailPercent": number}. A member of the wrong type is an error naming
// it; the settings are then absent (the defaults).
func (e Extensions) Compaction() (CompactionSettings, error) {
	raw, ok := e["compaction"]
	if !ok {
		return CompactionSettings{}, nil
	}
	var doc struct {
		TriggerPercent *float64 `json:"triggerPercent"`
		TailPercent    *float64 `json:"tailPercent"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return CompactionSettings{}, fmt.Errorf("%s: \"compaction\" must be {\"triggerPercent\": number, \"tailPercent\": number}: %w", ExtensionsFile, err)
	}
	return CompactionSettings(doc), nil
}

// CheckpointSettings are the "checkpoints" settings of extensions.json as
// written: nil for a member that is absent (the adapter's default).
type CheckpointSettings struct {
	// Enabled false takes no snapshots at all.
	Enabled *bool `json:"enabled"`
	// MaxFiles, MaxFileBytes and TimeoutSeconds are the snapshots'
	// limits.
	MaxFiles       *int     `json:"maxFiles"`
	MaxFileBytes   *int64   `json:"maxFileBytes"`
	TimeoutSeconds *float64 `json:"timeoutSeconds"`
	// KeepDays and KeepSnapshots bound the snapshots kept of each
	// workspace.
	KeepDays      *int `json:"keepDays"`
	KeepSnapshots *int `json:"keepSnapshots"`
}

// Checkpoints reads "checkpoints": {"enabled": bool, "maxFiles": number,
// "maxFileBytes": number, "timeoutSeconds": number, "keepDays": number,
// "keepSnapshots": number}. A member of the wrong type or a number below
// one is an error naming it; the settings are then absent (the defaults).
func (e Extensions) Checkpoints() (CheckpointSettings, error) {
	raw, ok := e["checkpoints"]
	if !ok {
		return CheckpointSettings{}, nil
	}
	var doc CheckpointSettings
	if err := json.Unmarshal(raw, &doc); err != nil {
		return CheckpointSettings{}, fmt.Errorf("%s: \"checkpoints\" must be {\"enabled\": bool, \"maxFiles\": number, \"maxFileBytes\": number, \"timeoutSeconds\": number, \"keepDays\": number, \"keepSnapshots\": number}: %w", ExtensionsFile, err)
	}
	if (doc.MaxFiles != nil && *doc.MaxFiles < 1) || (doc.MaxFileBytes != nil && *doc.MaxFileBytes < 1) || (doc.TimeoutSeconds != nil && *doc.TimeoutSeconds <= 0) ||
		(doc.KeepDays != nil && *doc.KeepDays < 1) || (doc.KeepSnapshots != nil && *doc.KeepSnapshots < 1) {
		return CheckpointSettings{}, fmt.Errorf("%s: the limits of \"checkpoints\" must be above zero", ExtensionsFile)
	}
	return doc, nil
}
