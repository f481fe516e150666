package engine_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// contextFull is the error an OpenAI provider gives a request larger than
// its context window.
func contextFull() error {
	return &albedo.Error{Code: albedo.EProvider, Message: `provider "x" answered 400 Bad Request: This model's maximum context length is 6000 tokens.`,
		Details: map[string]any{"status": 400, "provider_code": "context_length_exceeded"}}
}

// isSummary reports whether a request is a summary request.
func isSummary(t fataler, req albedo.ModelRequest) bool {
	if req.Instructions != compaction.SummaryInstructions {
		return false
	}
	return len(req.Tools) == 0 && strings.Contains(lastUserText(t, req.Input), "<newly-evicted-history>")
}

// callsPaired fails unless every call of a projected input has an output
// in it, and every output a call.
func callsPaired(t *testing.T, input []json.RawMessage) {
	t.Helper()
	calls := map[string]bool{}
	for _, m := range decodeInput(t, input) {
		if m.Type == "function_call" {
			calls[m.CallID] = true
		}
		for _, raw := range m.ToolCalls {
			var c struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			calls[c.ID] = true
		}
	}
	outs := outputsIn(t, input)
	for id := range calls {
		if _, ok := outs[id]; !ok {
			t.Errorf("call %s has no output in the request", id)
		}
	}
	for id := range outs {
		if !calls[id] {
			t.Errorf("output %s has no call in the request", id)
		}
	}
}

// fullOnce is a script that answers turns with a python round then text,
// and refuses the first request of the message "third" as too large.
type fullOnce struct {
	mu      sync.Mutex
	refused bool
}

// thirdTooLargeOnce answers as fullOnce: the first request of the message
// "third" is refused as too large, and every later one fits.
func thirdTooLargeOnce(t fataler) func(albedo.ModelRequest) fakes.Reply {
	return (&fullOnce{}).script(t, false)
}

// thirdAlwaysTooLarge answers as fullOnce, but every request of the message
// "third" is refused as too large, compacted or not.
func thirdAlwaysTooLarge(t fataler) func(albedo.ModelRequest) fakes.Reply {
	return (&fullOnce{}).script(t, true)
}

// neverTooLarge answers as fullOnce, but refuses no request.
func neverTooLarge(t fataler) func(albedo.ModelRequest) fakes.Reply {
	return (&fullOnce{refused: true}).script(t, false)
}

// wantNoCompaction fails if the session has a stored compaction state.
func (r *rig) wantNoCompaction(id, when string) {
	r.t.Helper()
	if _, err := r.store.Compaction(r.ctx, id); albedo.ErrorCode(err) != albedo.ENotFound {
		r.t.Errorf("compaction state %s: %v; want none", when, err)
	}
}

// wantNotCompacting fails unless the stored session is idle and compacting
// nothing.
func (r *rig) wantNotCompacting(id, when string) {
	r.t.Helper()
	if got := r.get(id); got.Compacting != "" || got.Stage != albedo.StageIdle {
		r.t.Errorf("session %s: compacting %q, stage %s; want idle, compacting nothing", when, got.Compacting, got.Stage)
	}
}

// wantNothingCompacted fails if a compaction that did not finish left a
// trace: a stored state, a compaction event or an error item.
func (r *rig) wantNothingCompacted(id, when string) {
	r.t.Helper()
	r.wantNoCompaction(id, when)
	if evs := compactionEvents(displayEvents(r.history(id))); len(evs) != 0 {
		r.t.Errorf("compaction events %s: %+v; want none", when, evs)
	}
	r.wantNoErrors(id, when)
}

func (f *fullOnce) script(t fataler, stillFull bool) func(albedo.ModelRequest) fakes.Reply {
	return func(req albedo.ModelRequest) fakes.Reply {
		f.mu.Lock()
		defer f.mu.Unlock()
		if isSummary(t, req) {
			return fakes.Text("SUMMARY of first and second")
		}
		last := decodeInput(t, req.Input)
		lastMsg := last[len(last)-1]
		if lastMsg.Role == "user" && strings.Contains(lastMsg.text(), "third") && (!f.refused || stillFull) {
			f.refused = true
			return fakes.Fail(contextFull())
		}
		if lastMsg.Role == "user" {
			return fakes.Python("print('" + lastMsg.text() + "')")
		}
		return fakes.Text("done")
	}
}

func TestContextFullCompactsOnceAndRetries(t *testing.T) {
	for _, provider := range []string{respProvider, chatProvider} {
		t.Run(provider, func(t *testing.T) {
			r := newRig(t, thirdTooLargeOnce(t))
			sess := r.sessionAfter(provider, "first", "second")
			before := r.provider.RequestCount()
			r.turn(sess.ID, "third")

			reqs := r.provider.Requests()[before:]
			summaries := slices.IndexFunc(reqs, func(q albedo.ModelRequest) bool { return isSummary(t, q) })
			if len(reqs) != 4 || summaries != 1 {
				t.Fatalf("requests of the third turn: %d, summary at %d; want refused, summary, retry, after the tool round", len(reqs), summaries)
			}
			summary := lastUserText(t, reqs[1].Input)
			for _, want := range []string{"<previous-summary>\n(none)\n</previous-summary>", "first", "second", "print('first')"} {
				if !strings.Contains(summary, want) {
					t.Errorf("summary request lacks %q:\n%s", want, summary)
				}
			}
			if strings.Contains(summary, "third") {
				t.Errorf("the newest unit was evicted:\n%s", summary)
			}
			for _, retry := range reqs[2:] {
				users := userTexts(t, retry.Input)
				if !strings.HasPrefix(users[0], compaction.SummaryPrefix+"\nSUMMARY of first and second") {
					t.Errorf("retry starts with %q; want the summary", users[0])
				}
				if !strings.Contains(users[0], "> first") || !strings.Contains(users[0], "> second") {
					t.Errorf("the summary message does not quote the evicted user messages: %q", users[0])
				}
				if len(users) != 2 || users[1] != "third" {
					t.Errorf("retry users = %q; want the summary and \"third\"", users)
				}
				callsPaired(t, retry.Input)
			}
			r.wantNoErrors(sess.ID, "after the retried turn")
			items := r.history(sess.ID)
			if n := len(ofKind(items, albedo.KindUser)); n != 3 || len(ofKind(items, albedo.KindToolCall)) != 3 || items[len(items)-1].Text != albedo.TurnFinished {
				t.Errorf("history = %v; want three whole turns", kinds(items))
			}
			c, err := r.store.Compaction(r.ctx, sess.ID)
			if err != nil || c.Users != 2 || c.Strategy != albedo.CompactForced || c.Summary != "SUMMARY of first and second" || c.Items != 8 {
				t.Errorf("compaction state = %+v, %v", c, err)
			}
		})
	}
}

func TestContextStillFullFailsSayingWhatWasTried(t *testing.T) {
	r := newRig(t, thirdAlwaysTooLarge(t))
	sess := r.sessionAfter(respProvider, "first")
	before := r.provider.RequestCount()
	r.turn(sess.ID, "third")
	if n := r.provider.RequestCount() - before; n != 3 {
		t.Errorf("requests = %d; want refused, summary, retry", n)
	}
	errs := ofKind(r.history(sess.ID), albedo.KindError)
	if len(errs) != 1 || !strings.Contains(errs[0].Text, "even after compacting") || !strings.Contains(errs[0].Text, "maximum context length") {
		t.Errorf("errors = %+v; want one that says compaction was tried", errs)
	}
}

func TestContextFullWithOneUnitFailsWithoutASummaryRequest(t *testing.T) {
	r := newRig(t, thirdAlwaysTooLarge(t))
	sess := r.sessionAfter(respProvider, "third")
	if n := r.provider.RequestCount(); n != 1 {
		t.Errorf("requests = %d; want only the refused one", n)
	}
	errs := ofKind(r.history(sess.ID), albedo.KindError)
	if len(errs) != 1 || !strings.Contains(errs[0].Text, "nothing to compact") {
		t.Errorf("errors = %+v; want one that says there was nothing to compact", errs)
	}
	r.wantNoCompaction(sess.ID, "after a failure")
}

func TestCompactionSurvivesModelSwitchAndRestart(t *testing.T) {
	r := newRig(t, thirdTooLargeOnce(t))
	sess := r.sessionAfter(respProvider, "first", "third")
	if _, err := r.svc.SwitchModel(r.ctx, sess.ID, chatProvider, "chat-model", nil); err != nil {
		t.Fatal(err)
	}
	r.svc = r.newService()
	before := r.provider.RequestCount()
	r.turn(sess.ID, "fourth")
	reqs := r.provider.Requests()[before:]
	for _, q := range reqs {
		if isSummary(t, q) {
			t.Fatal("a new summary was asked for")
		}
		if q.Endpoint.Protocol != albedo.ProtocolChatCompletions {
			t.Fatalf("request went to %s", q.Endpoint.Protocol)
		}
		users := userTexts(t, q.Input)
		if !strings.HasPrefix(users[0], compaction.SummaryPrefix+"\nSUMMARY") || len(users) != 3 || users[1] != "third" || !strings.HasPrefix(users[2], "fourth") {
			t.Errorf("users = %q; want the summary, third, fourth", users)
		}
		callsPaired(t, q.Input)
	}
}

func TestForkStartsWithoutCompaction(t *testing.T) {
	r := newRig(t, thirdTooLargeOnce(t))
	sess := r.sessionAfter(respProvider, "first", "third")
	if _, err := r.store.Compaction(r.ctx, sess.ID); err != nil {
		t.Fatalf("the source has no compaction state: %v", err)
	}
	answers := ofKind(r.history(sess.ID), albedo.KindAssistant)
	branch, err := r.svc.Fork(r.ctx, sess.ID, answers[len(answers)-1].Seq)
	if err != nil {
		t.Fatal(err)
	}
	r.wantNoCompaction(branch.ID, "of the fork")
	before := r.provider.RequestCount()
	r.turn(branch.ID, "fourth")
	first := r.provider.Requests()[before]
	if users := userTexts(t, first.Input); len(users) != 3 || users[0] != "first" {
		t.Errorf("the fork's first request users = %q; want the whole transcript", users)
	}
}
