package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// compactionEvents returns the compaction events of events.
func compactionEvents(events []albedo.Event) []albedo.Event {
	var out []albedo.Event
	for _, ev := range events {
		if ev.Type == wire.EventCompaction {
			out = append(out, ev)
		}
	}
	return out
}

func TestCompactionIsADurableEventNeverSentToTheModel(t *testing.T) {
	for _, provider := range []string{respProvider, chatProvider} {
		t.Run(provider, func(t *testing.T) {
			r := newRig(t, thirdTooLargeOnce(t))
			sess := r.sessionAfter(provider, "first", "second")
			live, err := r.svc.Subscribe(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer live.Close()
			before := r.provider.RequestCount()
			r.turn(sess.ID, "third")
			// The title is the latest message's: the compaction made in
			// that turn did not change it.
			if title := r.get(sess.ID).Title; title != "third" {
				t.Errorf("title = %q; want the latest message's", title)
			}
			r.turn(sess.ID, "fourth")

			state, err := r.store.Compaction(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			history := displayEvents(r.history(sess.ID))
			got := compactionEvents(history)
			if len(got) != 1 {
				t.Fatalf("history holds %d compaction events; want 1: %+v", len(got), got)
			}
			ev := got[0]
			if ev.Seq == 0 || ev.Timestamp != state.At || ev.Summary != state.Summary || ev.Items != state.Items || ev.Text != "" {
				t.Errorf("compaction event = %+v; want seq, timestamp %d, summary %q, items %d", ev, state.At, state.Summary, state.Items)
			}
			if ev.TokensAfter <= 0 || ev.TokensBefore <= ev.TokensAfter {
				t.Errorf("tokens before %d, after %d; want the summary to make the request smaller", ev.TokensBefore, ev.TokensAfter)
			}
			// It comes right after the refused request's unit began, before
			// the retry's reply.
			at := slices.IndexFunc(history, func(e albedo.Event) bool { return e.Type == wire.EventCompaction })
			if history[at-1].Type != wire.EventUser || history[at-1].Text != "third" {
				t.Errorf("the compaction event follows %+v; want the refused message", history[at-1])
			}

			sub, err := r.svc.Subscribe(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			sub.Close()
			if snap := compactionEvents(sub.Snapshot); len(snap) != 1 || snap[0] != ev {
				t.Errorf("snapshot compaction events = %+v; want %+v", snap, ev)
			}
			var seen []albedo.Event
			waitFor(t, "the live compaction event", func() bool {
				for {
					select {
					case e := <-live.Events:
						seen = append(seen, e)
						continue
					default:
					}
					return len(compactionEvents(seen)) == 1
				}
			})
			if l := compactionEvents(seen)[0]; l != ev {
				t.Errorf("live compaction event = %+v; want %+v", l, ev)
			}

			reqs := r.provider.Requests()[before:]
			first := slices.IndexFunc(reqs, func(q albedo.ModelRequest) bool { return isSummary(t, q) })
			if first < 0 {
				t.Fatal("no summary request")
			}
			for i, req := range reqs[first+1:] {
				users := userTexts(t, req.Input)
				n := 0
				for _, u := range users {
					n += strings.Count(u, state.Summary)
				}
				if n != 1 {
					t.Errorf("request %d carries the summary %d times; want once, in the summary message: %q", i, n, users)
				}
			}
		})
	}
}

func TestContextSaysWhetherTheSessionIsCompacted(t *testing.T) {
	r := newRig(t, thirdTooLargeOnce(t))
	sess := r.sessionAfter(respProvider, "first", "second")
	rep, err := r.svc.Context(r.ctx, sess.ID)
	if err != nil || rep.Compaction != nil {
		t.Fatalf("context before any compaction: %+v, %v; want no compaction", rep.Compaction, err)
	}
	r.turn(sess.ID, "third")
	state, err := r.store.Compaction(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = r.svc.Context(r.ctx, sess.ID)
	if err != nil || rep.Compaction == nil || rep.Compaction.Items != state.Items || rep.Compaction.At != state.At || state.Items == 0 {
		t.Fatalf("context after a compaction: %+v, %v; want the state %+v", rep.Compaction, err, state)
	}
	branch, err := r.svc.Fork(r.ctx, sess.ID, r.history(sess.ID)[0].Seq)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := r.svc.Context(r.ctx, branch.ID); err != nil || rep.Compaction != nil {
		t.Errorf("context of a fork: %+v, %v; want no compaction", rep.Compaction, err)
	}
}
