package engine_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// countingCatalog is a model catalog that gives both rig models a window
// and counts how often it is read.
type countingCatalog struct {
	window int64
	reads  atomic.Int64
}

func (c *countingCatalog) Catalog(context.Context) albedo.Catalog {
	c.reads.Add(1)
	return albedo.Catalog{Providers: map[string]albedo.CatalogProvider{
		"resp": {API: "http://resp.invalid/v1", Models: map[string]albedo.CatalogModel{"resp-model": {Context: c.window}}},
		"chat": {API: "http://chat.invalid/v1", Models: map[string]albedo.CatalogModel{"chat-model": {Context: c.window}}},
	}}
}

func TestARoundReadsTheConfigurationOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		// script answers the requests; earlier are the messages of the
		// turns before the one measured.
		script  func(t *testing.T) func(albedo.ModelRequest) fakes.Reply
		earlier []string
		message string
		tune    func(*engine.Options)
		// rounds is how many model rounds the measured turn makes;
		// summaries how many of its requests are summary requests.
		rounds, summaries int
	}{
		{name: "a plain answer", rounds: 1,
			script:  func(*testing.T) func(albedo.ModelRequest) fakes.Reply { return script(fakes.Text("answered")) },
			message: "hello"},
		{name: "tool calls", rounds: 3,
			script: func(*testing.T) func(albedo.ModelRequest) fakes.Reply {
				return script(fakes.Text("done"), fakes.Python("print(1)"), fakes.Python("print(2)"))
			},
			message: "count"},
		{name: "an automatic compaction", rounds: 1, summaries: 1,
			script: func(t *testing.T) func(albedo.ModelRequest) fakes.Reply {
				return (&summarising{t: t, turn: func() fakes.Reply { return fakes.Text("answered") }}).script
			},
			tune:    func(o *engine.Options) { o.Compaction = albedo.CompactionSettings{TriggerPercent: ptr(1.0)} },
			earlier: []string{"first"}, message: "second"},
		{name: "a refusal compacted and retried", rounds: 2, summaries: 1,
			script:  func(t *testing.T) func(albedo.ModelRequest) fakes.Reply { return (&fullOnce{}).script(t, false) },
			earlier: []string{"first", "second"}, message: "third"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := &countingCatalog{window: smallWindow}
			r := newRig(t, nil)
			r.provider = fakes.NewProvider(tc.script(t))
			r.tune = func(o *engine.Options) {
				o.Catalog = cat
				if tc.tune != nil {
					tc.tune(o)
				}
			}
			r.svc = r.newService()
			sess := r.sessionAfter(respProvider, tc.earlier...)
			loads, reads, requests := r.config.Loads(), cat.reads.Load(), r.provider.RequestCount()
			r.turn(sess.ID, tc.message)

			if summaries := summaryRequests(t, r.provider.Requests()[requests:]); summaries != tc.summaries {
				t.Fatalf("the turn made %d summary requests; want %d", summaries, tc.summaries)
			}
			r.wantNoErrors(sess.ID, "after the turn")
			if items := r.history(sess.ID); items[len(items)-1].Text != albedo.TurnFinished {
				t.Fatalf("the turn did not finish: %v", kinds(items))
			}
			if got := r.config.Loads() - loads; got != tc.rounds {
				t.Errorf("the configuration was read %d times in %d rounds; want once a round", got, tc.rounds)
			}
			if got := cat.reads.Load() - reads; got != int64(tc.rounds) {
				t.Errorf("the model catalog was read %d times in %d rounds; want once a round", got, tc.rounds)
			}
		})
	}
}

func TestAConfigurationEditedDuringARoundAppliesFromTheNext(t *testing.T) {
	r := newRig(t, nil)
	edited := false
	r.provider = fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply {
		if !edited {
			edited = true
			// The user points the provider elsewhere while the model
			// answers the first round.
			if err := r.config.SaveProvider(r.ctx, albedo.ProviderConfig{Name: respProvider, BaseURL: "http://moved.invalid/v1", APIKey: "k9", Model: "resp-model", Protocol: albedo.ProtocolResponses}, false); err != nil {
				t.Error(err)
			}
			return fakes.Python("print(1)")
		}
		return fakes.Text("done")
	})
	r.svc = r.newService()
	sess := r.session(respProvider)
	r.turn(sess.ID, "go")
	reqs := r.provider.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}
	var urls []string
	for _, q := range reqs {
		urls = append(urls, q.Endpoint.BaseURL+" "+q.Endpoint.APIKey)
	}
	if got, want := strings.Join(urls, ", "), "http://resp.invalid/v1 k1, http://moved.invalid/v1 k9"; got != want {
		t.Errorf("rounds went to %s; want %s", got, want)
	}
}

func TestCompactReadsTheConfigurationOnceToStartAndOnceToRun(t *testing.T) {
	// No window: /compact keeps only the newest unit.
	cat := &countingCatalog{}
	f := &fullOnce{refused: true}
	r := newRig(t, nil)
	r.provider = fakes.NewProvider(f.script(t, false))
	r.tune = func(o *engine.Options) { o.Catalog = cat }
	r.svc = r.newService()
	sess := r.sessionAfter(respProvider, "first", "second")
	loads, reads, requests := r.config.Loads(), cat.reads.Load(), r.provider.RequestCount()
	out, err := r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil)
	if res := out.Compact; err != nil || res == nil || !res.Started {
		t.Fatalf("/compact = %#v, %v; want started", out, err)
	}
	r.waitIdle(sess.ID)
	if reqs := r.provider.Requests()[requests:]; len(reqs) != 1 || summaryRequests(t, reqs) != 1 {
		t.Fatalf("/compact made %d requests; want one summary request", len(reqs))
	}
	if got := r.config.Loads() - loads; got != 2 {
		t.Errorf("/compact read the configuration %d times; want once to start and once to run", got)
	}
	if got := cat.reads.Load() - reads; got != 2 {
		t.Errorf("/compact read the model catalog %d times; want once to start and once to run", got)
	}
}

// summaryRequests counts the summary requests among reqs.
func summaryRequests(t fataler, reqs []albedo.ModelRequest) int {
	n := 0
	for _, req := range reqs {
		if isSummary(t, req) {
			n++
		}
	}
	return n
}
