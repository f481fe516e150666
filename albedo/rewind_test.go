package albedo

import (
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func TestARewindRestoresWhatStepsChangedAndKeepsWhatTheUserDid(t *testing.T) {
	set := func(paths ...string) map[string]bool {
		m := map[string]bool{}
		for _, p := range paths {
			m[p] = true
		}
		return m
	}
	mod := func(p string) FileChange { return FileChange{Path: p, Kind: FileModified} }
	for _, tc := range []struct {
		name             string
		current          []FileChange
		byStep, outside  map[string]bool
		restore, kept, c []FileChange
	}{
		{"only the cells", []FileChange{mod("a"), {Path: "b", Kind: FileCreated}}, set("a", "b"), set(),
			[]FileChange{mod("a"), {Path: "b", Kind: FileCreated}}, nil, nil},
		{"only the user", []FileChange{mod("u")}, set(), set("u"), nil, []FileChange{mod("u")}, nil},
		{"both on one file", []FileChange{mod("a"), mod("both")}, set("a", "both"), set("both"),
			[]FileChange{mod("a")}, nil, []FileChange{mod("both")}},
		{"a change that cancelled out is left alone", []FileChange{mod("a")}, set("a", "gone"), set("gone"),
			[]FileChange{mod("a")}, nil, nil},
	} {
		got := PlanRewind(tc.current, tc.byStep, tc.outside)
		want := RewindPlan{Restore: tc.restore, Kept: tc.kept, Conflicts: tc.c}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v; want %+v", tc.name, got, want)
		}
	}
}

func TestStepsAreTheItemsThatRecordSnapshots(t *testing.T) {
	cp := func(b, a string) *CellResult {
		return &CellResult{Trace: Trace{Checkpoint: &wire.Checkpoint{Before: b, After: a}}}
	}
	items := []Item{
		{Seq: 1, Kind: KindUser},
		{Seq: 3, Kind: KindToolOutput, Result: cp("t0", "t1")},
		{Seq: 5, Kind: KindToolOutput, Result: &CellResult{}},
		{Seq: 7, Kind: KindToolOutput, Result: cp("", "t2")},
		{Seq: 9, Kind: KindUser, Source: RewindSource, Result: cp("t2", "t0")},
	}
	want := []Step{{3, wire.Checkpoint{Before: "t0", After: "t1"}}, {7, wire.Checkpoint{After: "t2"}}, {9, wire.Checkpoint{Before: "t2", After: "t0"}}}
	if got := Steps(items); !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v; want %+v", got, want)
	}
}
