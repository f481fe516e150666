package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// editedSettings are compaction settings a test edits, as a user edits
// extensions.json while albedo runs.
type editedSettings struct {
	mu  sync.Mutex
	set albedo.CompactionSettings
}

func (e *editedSettings) CompactionSettings(context.Context) albedo.CompactionSettings {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.set
}

func (e *editedSettings) edit(set albedo.CompactionSettings) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.set = set
}

func TestEditedCompactionSettingsApplyFromTheNextRequest(t *testing.T) {
	settings := &editedSettings{}
	r := newRig(t, (&summarising{t: t, turn: func() fakes.Reply { return fakes.Text("answered") }}).script)
	r.tune = func(o *engine.Options) { o.Compaction = settings }
	r.windowed(smallWindow)
	sess := r.session(respProvider)
	problems := func() string {
		t.Helper()
		rep, err := r.svc.Context(r.ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(rep.Problems, "\n")
	}
	for _, step := range []struct {
		name string
		set  albedo.CompactionSettings
		// compacts says whether the turn's request is compacted first;
		// problem is in the context's problems ("" for none).
		compacts bool
		problem  string
	}{
		{name: "the defaults", compacts: false},
		{name: "an invalid trigger", set: albedo.CompactionSettings{TriggerPercent: ptr(500.0)}, problem: "not 500: using 90"},
		{name: "a trigger the next request reaches", set: albedo.CompactionSettings{TriggerPercent: ptr(1.0)}, compacts: true},
		{name: "the trigger raised again", set: albedo.CompactionSettings{TriggerPercent: ptr(100.0)}, compacts: false},
	} {
		settings.edit(step.set)
		if got := problems(); (step.problem == "" && got != "") || !strings.Contains(got, step.problem) {
			t.Errorf("%s: problems %q; want %q", step.name, got, step.problem)
		}
		before := r.provider.RequestCount()
		r.turn(sess.ID, step.name)
		summaries := summaryRequests(t, r.provider.Requests()[before:])
		if compacted := summaries > 0; compacted != step.compacts {
			t.Errorf("%s: the turn made %d summary requests; want a compaction: %v", step.name, summaries, step.compacts)
		}
	}
}
