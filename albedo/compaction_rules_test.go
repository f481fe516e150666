package albedo

import (
	"testing"
)

func TestCompactionRulesUseTheDefaultsForInvalidValues(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name          string
		settings      CompactionSettings
		trigger, tail float64
		problems      int
	}{
		{"absent", CompactionSettings{}, 90, 25, 0},
		{"valid", CompactionSettings{TriggerPercent: p(80), TailPercent: p(30)}, 80, 30, 0},
		{"trigger 100 is allowed", CompactionSettings{TriggerPercent: p(100)}, 100, 25, 0},
		{"trigger above 100", CompactionSettings{TriggerPercent: p(101)}, 90, 25, 1},
		{"negative trigger", CompactionSettings{TriggerPercent: p(-5)}, 90, 25, 1},
		{"tail 0", CompactionSettings{TailPercent: p(0)}, 90, 25, 1},
		{"tail not below the trigger", CompactionSettings{TriggerPercent: p(50), TailPercent: p(50)}, 50, 25, 1},
		{"a small trigger halves the default tail", CompactionSettings{TriggerPercent: p(20)}, 20, 10, 0},
		{"both invalid", CompactionSettings{TriggerPercent: p(0), TailPercent: p(100)}, 90, 25, 2},
		{"unreadable settings", CompactionSettings{Problem: "bad"}, 90, 25, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.settings.Rules()
			if r.Trigger != tc.trigger || r.Tail != tc.tail || len(r.Problems) != tc.problems {
				t.Errorf("rules = %g/%g %q; want %g/%g with %d problems", r.Trigger, r.Tail, r.Problems, tc.trigger, tc.tail, tc.problems)
			}
		})
	}
}

func TestCompactionProblemsNameWhereTheSettingsCameFrom(t *testing.T) {
	bad := 500.0
	for _, tc := range []struct {
		name, origin, want string
	}{
		{"read from a file", "extensions.json", "compaction.triggerPercent in extensions.json must be above 0 and at most 100, not 500: using 90"},
		{"given by a program", "", "compaction.triggerPercent must be above 0 and at most 100, not 500: using 90"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := CompactionSettings{TriggerPercent: &bad, Origin: tc.origin}.Rules()
			if len(r.Problems) != 1 || r.Problems[0] != tc.want {
				t.Errorf("problems = %q; want [%q]", r.Problems, tc.want)
			}
		})
	}
}
