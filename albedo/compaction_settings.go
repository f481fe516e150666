package albedo

import (
	"context"
	"fmt"
)

// Default compaction settings: compact when the next request reaches 90%
// of the context window, and keep the newest units that fit in 25% of it
// verbatim.
const (
	DefaultTriggerPercent = 90
	DefaultTailPercent    = 25
)

// CompactionSettings are the compaction settings as a CompactionSource
// read, before they are checked: nil means the default.
type CompactionSettings struct {
	// TriggerPercent is the share of the context window that the next
	// request reaches when albedo compacts first.
	TriggerPercent *float64
	// TailPercent is the share of the context window the newest units kept
	// verbatim may fill (at least one unit is kept).
	TailPercent *float64
	// Problem says what was wrong reading the settings, "" when nothing
	// was.
	Problem string
	// Origin names where the settings were read (a file), for the
	// problems of invalid values to name; "" names none.
	Origin string
}

// CompactionSource gives the current compaction settings. It is called
// for every model request, so implementations should be cheap when
// nothing changed.
type CompactionSource interface {
	CompactionSettings(ctx context.Context) CompactionSettings
}

// CompactionSettings implements CompactionSource with settings that never
// change.
func (c CompactionSettings) CompactionSettings(context.Context) CompactionSettings { return c }

// CompactionRules are the checked compaction settings.
type CompactionRules struct {
	Trigger, Tail float64
	// problems say in words which settings were invalid and so replaced by
	// their defaults.
	Problems []string
}

// Rules checks the settings: a trigger must be above 0 and at most 100, a
// tail above 0 and below the trigger. An invalid value is replaced by its
// default, and a problem says so.
func (c CompactionSettings) Rules() CompactionRules {
	r := CompactionRules{Trigger: DefaultTriggerPercent, Tail: DefaultTailPercent}
	in := ""
	if c.Origin != "" {
		in = " in " + c.Origin
	}
	if c.Problem != "" {
		r.Problems = append(r.Problems, c.Problem)
	}
	if t := c.TriggerPercent; t != nil {
		if *t > 0 && *t <= 100 {
			r.Trigger = *t
		} else {
			r.Problems = append(r.Problems, fmt.Sprintf(
				"compaction.triggerPercent%s must be above 0 and at most 100, not %g: using %d", in, *t, DefaultTriggerPercent))
		}
	}
	if t := c.TailPercent; t != nil {
		switch {
		case *t <= 0 || *t >= 100:
			r.Problems = append(r.Problems, fmt.Sprintf(
				"compaction.tailPercent%s must be above 0 and below 100, not %g: using %d", in, *t, DefaultTailPercent))
		case *t >= r.Trigger:
			r.Problems = append(r.Problems, fmt.Sprintf(
				"compaction.tailPercent%s (%g) must be below triggerPercent (%g): using %d", in, *t, r.Trigger, DefaultTailPercent))
		default:
			r.Tail = *t
		}
	}
	if r.Tail >= r.Trigger {
		// A default tail above a small trigger: keep half of what triggers.
		r.Tail = r.Trigger / 2
	}
	return r
}
