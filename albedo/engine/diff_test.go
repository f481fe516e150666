package engine_test

import (
	"fmt"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
)

func TestADiffListsWhatTheStepsBetweenTwoCheckpointsChanged(t *testing.T) {
	r := newRewindRig(t)
	var outputs []int64
	var last int64
	for _, it := range r.history(r.id) {
		if it.Kind == albedo.KindToolOutput {
			outputs = append(outputs, it.Seq)
		}
		last = it.Seq
	}
	if len(outputs) != 2 {
		t.Fatalf("%d tool outputs; want 2", len(outputs))
	}
	seq := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name     string
		from, to *int64
		// want lists "STATUS PATH +ADDED -DELETED".
		want []string
		code string
	}{
		{name: "the whole session by default", want: []string{"created a.txt +1 -0", "created b.txt +1 -0", "deleted c.txt +0 -1", "modified d.txt +2 -2", "modified e.sh +0 -0"}},
		{name: "the first cell", to: seq(outputs[0]), want: []string{"created a.txt +1 -0"}},
		{name: "the second cell", from: seq(outputs[1] - 1), to: seq(outputs[1]), want: []string{"created b.txt +1 -0", "deleted c.txt +0 -1", "modified d.txt +2 -2", "modified e.sh +0 -0"}},
		{name: "no step in between", from: seq(outputs[1]), want: nil},
		{name: "a negative checkpoint", from: seq(-1), code: albedo.EInvalid},
		{name: "from after to", from: seq(outputs[1]), to: seq(outputs[0]), code: albedo.EInvalid},
		{name: "an item the session has not", to: seq(last + 1), code: albedo.ENotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := r.svc.Diff(r.ctx, r.id, engine.DiffRange{From: tc.from, To: tc.to})
			if tc.code != "" {
				if albedo.ErrorCode(err) != tc.code {
					t.Fatalf("error %v (%s); want %s", err, albedo.ErrorCode(err), tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range d.Files {
				got = append(got, fmt.Sprintf("%s %s +%d -%d", f.Kind, f.Path, f.Added, f.Deleted))
				if f.Patch == "" || f.PatchCut {
					t.Errorf("%s has no whole patch", f.Path)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("diff %q; want %q", got, tc.want)
			}
		})
	}
}
