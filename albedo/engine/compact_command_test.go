package engine_test

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestCompactCommand(t *testing.T) {
	for _, provider := range []string{respProvider, chatProvider} {
		t.Run(provider, func(t *testing.T) {
			r := newRig(t, neverTooLarge(t))
			sess := r.sessionAfter(provider, "first")

			out, err := r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil)
			if res := out.Compact; err != nil || res == nil || res.Started || !strings.Contains(res.Reason, "nothing to compact") {
				t.Fatalf("/compact of one unit = %#v, %v; want not started with a reason", out, err)
			}
			before := r.provider.RequestCount()
			r.turn(sess.ID, "second")
			if n := r.provider.RequestCount() - before; n != 2 {
				t.Fatalf("the second turn made %d requests; want 2 (one-unit /compact made a request?)", n)
			}

			gate := fakes.NewGate()
			r.provider.SetGate(gate)
			out, err = r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil)
			if res := out.Compact; err != nil || res == nil || !res.Started {
				t.Fatalf("/compact = %#v, %v; want started", out, err)
			}
			<-gate.Entered()
			if running, _ := r.svc.Running(r.ctx, sess.ID); !running {
				t.Error("the session is not running while it compacts")
			}
			_, err = r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil)
			wantCode(t, err, albedo.EBusy)
			r.provider.SetGate(nil)
			gate.Open()
			r.waitIdle(sess.ID)

			c, err := r.store.Compaction(r.ctx, sess.ID)
			if err != nil || c.Users != 1 || c.Strategy != albedo.CompactManual {
				t.Fatalf("compaction state = %+v, %v", c, err)
			}
			if evs := compactionEvents(displayEvents(r.history(sess.ID))); len(evs) != 1 || evs[0].Summary != c.Summary || evs[0].Items != c.Items {
				t.Errorf("compaction events after /compact = %+v; want one for %+v", evs, c)
			}
			last := r.provider.Requests()[r.provider.RequestCount()-1]
			if !isSummary(t, last) || !strings.Contains(lastUserText(t, last.Input), "first") || strings.Contains(lastUserText(t, last.Input), "second") {
				t.Errorf("the /compact request is not a summary of the first unit: %s", lastUserText(t, last.Input))
			}
			before = r.provider.RequestCount()
			r.turn(sess.ID, "third")
			next := r.provider.Requests()[before]
			if users := userTexts(t, next.Input); len(users) != 3 || !strings.HasPrefix(users[0], compaction.SummaryPrefix) || users[1] != "second" {
				t.Errorf("users after /compact = %q", users)
			}
		})
	}
}

func TestCompactInterruptedChangesNothing(t *testing.T) {
	r := newRig(t, neverTooLarge(t))
	sess := r.sessionAfter(respProvider, "first", "second")
	gate := fakes.NewGate()
	r.provider.SetGate(gate)
	if _, err := r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil); err != nil {
		t.Fatal(err)
	}
	<-gate.Entered()
	if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)
	r.wantNothingCompacted(sess.ID, "after an interrupt")
}

func TestCompactWithNoProviderIsRefusedAtOnce(t *testing.T) {
	r := newRig(t, neverTooLarge(t))
	sess := r.sessionAfter(chatProvider, "first", "second")
	r.config.RemoveProvider(chatProvider)
	before := r.provider.RequestCount()
	_, err := r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil)
	wantCode(t, err, albedo.ENoProvider)
	if running, _ := r.svc.Running(r.ctx, sess.ID); running || r.provider.RequestCount() != before {
		t.Errorf("a refused /compact ran (running %v) or asked the provider", running)
	}
	r.wantNotCompacting(sess.ID, "after a refused /compact")
}
