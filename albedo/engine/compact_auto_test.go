package engine_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// smallWindow is the context window of the automatic compaction tests.
const smallWindow = 6000

// windowed configures the rig's two providers with a context window and
// makes a new service over them.
func (r *rig) windowed(window int64) {
	r.config = fakes.NewConfig(respProvider,
		albedo.ProviderConfig{Name: respProvider, BaseURL: "http://resp.invalid/v1", APIKey: "k1", Model: "resp-model", Protocol: albedo.ProtocolResponses, ContextWindow: window},
		albedo.ProviderConfig{Name: chatProvider, BaseURL: "http://chat.invalid/v1", APIKey: "k2", Model: "chat-model", Protocol: albedo.ProtocolChatCompletions, ContextWindow: window},
	)
	r.svc = r.newService()
}

// bodyTokens is the documented estimate of a request: the bytes of a body
// carrying its instructions, input and tools, divided by 4.
func bodyTokens(t *testing.T, req albedo.ModelRequest) int64 {
	t.Helper()
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	var tools []tool
	for _, x := range req.Tools {
		tools = append(tools, tool{x.Name, x.Description, x.Parameters})
	}
	body, err := json.Marshal(map[string]any{"model": req.Endpoint.Model, "instructions": req.Instructions, "input": req.Input, "tools": tools, "stream": true})
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(body)) / 4
}

// toolRounds is a script that answers every user message through rounds
// python rounds and then text, and every summary request with a summary
// numbered from 1. Its kernel prints about 1 KB per cell.
type toolRounds struct {
	t         *testing.T
	rounds    int
	mu        sync.Mutex
	summaries int
	// fail, when set, answers summary requests instead.
	fail func() fakes.Reply
}

func (s *toolRounds) script(req albedo.ModelRequest) fakes.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isSummary(s.t, req) {
		if s.fail != nil {
			return s.fail()
		}
		s.summaries++
		return fakes.Text(fmt.Sprintf("SUMMARY #%d", s.summaries))
	}
	msgs := decodeInput(s.t, req.Input)
	outs := 0
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != "user"; i-- {
		if msgs[i].Type == "function_call_output" || msgs[i].Role == "tool" {
			outs++
		}
	}
	if outs < s.rounds {
		return fakes.Python(fmt.Sprintf("print('y' * 1000)  # round %d", outs+1))
	}
	return fakes.Text("done")
}

// summarising is a script that answers every summary request with
// "SUMMARY" and counts them, and every other request with turn. Both run
// under one lock, so turn may keep its own counts.
type summarising struct {
	t    *testing.T
	turn func() fakes.Reply
	mu   sync.Mutex
	n    int
}

func (s *summarising) script(req albedo.ModelRequest) fakes.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isSummary(s.t, req) {
		s.n++
		return fakes.Text("SUMMARY")
	}
	return s.turn()
}

// summaries is how many summary requests were answered.
func (s *summarising) summaries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// kiloOutput is the output of the n-th cell: about 1 KB.
func kiloOutput(n int) string { return fmt.Sprintf("cell %d\n%s\n", n, strings.Repeat("y", 1000)) }

func TestAutomaticCompactionKeepsEveryRequestInTheWindow(t *testing.T) {
	for _, provider := range []string{respProvider, chatProvider} {
		t.Run(provider, func(t *testing.T) {
			script := &toolRounds{t: t, rounds: 3}
			r := newRig(t, script.script)
			r.kernel.SetResult(func(n int, _ albedo.Cell) (albedo.CellResult, error) {
				return albedo.CellResult{Status: albedo.CellOK, Output: kiloOutput(n)}, nil
			})
			r.windowed(smallWindow)
			sess := r.session(provider)
			for i := 1; i <= 20; i++ {
				r.turn(sess.ID, fmt.Sprintf("message %d", i))
			}

			reqs := r.provider.Requests()
			previous := regexp.MustCompile(`(?s)<previous-summary>\n(.*)\n</previous-summary>`)
			latest := "(none)"
			summaries, run, chunked := 0, 0, false
			for i, q := range reqs {
				if run = run + 1; !isSummary(t, q) {
					run = 0
				}
				chunked = chunked || run > 1
				if n := bodyTokens(t, q); n > smallWindow {
					t.Errorf("request %d is %d tokens by the estimate; the window is %d", i, n, smallWindow)
				}
				if isSummary(t, q) {
					text := lastUserText(t, q.Input)
					if got := previous.FindStringSubmatch(text); got == nil || got[1] != latest {
						t.Errorf("summary request %d carries the previous summary %q; want %q", i, got, latest)
					}
					evicted := text[strings.Index(text, "<newly-evicted-history>"):]
					if n := int64(len(evicted)) / 4; n > smallWindow/2 {
						t.Errorf("summary request %d evicts %d tokens at once; want at most half the window", i, n)
					}
					summaries++
					latest = fmt.Sprintf("SUMMARY #%d", summaries)
					continue
				}
				callsPaired(t, q.Input)
				if summaries > 0 {
					if users := userTexts(t, q.Input); !strings.HasPrefix(users[0], compaction.SummaryPrefix+"\n"+latest) {
						t.Errorf("request %d starts with %.60q; want the latest summary %q", i, users[0], latest)
					}
				}
			}
			if !chunked {
				t.Errorf("no compaction was summarised in chunks")
			}
			if summaries < 2 {
				t.Errorf("%d summary requests; want the session to compact more than once", summaries)
			}
			if len(reqs) != 80+summaries {
				t.Errorf("%d requests; want 80 turn requests and %d summary requests", len(reqs), summaries)
			}

			items := r.history(sess.ID)
			outs := ofKind(items, albedo.KindToolOutput)
			if len(ofKind(items, albedo.KindUser)) != 20 || len(ofKind(items, albedo.KindToolCall)) != 60 || len(outs) != 60 {
				t.Fatalf("history holds %d users, %d calls, %d outputs; want 20, 60, 60", len(ofKind(items, albedo.KindUser)),
					len(ofKind(items, albedo.KindToolCall)), len(outs))
			}
			for i, out := range outs {
				if out.Result == nil || out.Result.Output != kiloOutput(i+1) {
					t.Errorf("output %d is not what cell %d printed", i+1, i+1)
				}
			}
			if errs := ofKind(items, albedo.KindError); len(errs) != 0 {
				t.Errorf("history holds errors: %v", errs)
			}
			rows, err := r.svc.Requests(r.ctx, sess.ID, 0, albedo.MaxRequestPage)
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[albedo.RequestKind]int{}
			for _, row := range rows.Rows {
				kinds[row.Kind]++
			}
			if kinds[albedo.RequestSummary] != summaries || kinds[albedo.RequestTurn] != 80 {
				t.Errorf("ledger rows %v; want %d summary and 80 turn rows", kinds, summaries)
			}
		})
	}
}

func TestNoWindowNoAutomaticCompaction(t *testing.T) {
	script := &toolRounds{t: t, rounds: 3}
	r := newRig(t, script.script)
	r.kernel.SetResult(func(n int, _ albedo.Cell) (albedo.CellResult, error) {
		return albedo.CellResult{Status: albedo.CellOK, Output: kiloOutput(n)}, nil
	})
	sess := r.session(respProvider)
	for i := 1; i <= 8; i++ {
		r.turn(sess.ID, fmt.Sprintf("message %d", i))
	}
	if script.summaries != 0 {
		t.Errorf("%d summary requests with no known window", script.summaries)
	}
	if n := bodyTokens(t, r.provider.Requests()[r.provider.RequestCount()-1]); n <= smallWindow {
		t.Fatalf("the last request is only %d tokens: the test proves nothing", n)
	}
}

func TestAutomaticCompactionCountsTheProvidersTokens(t *testing.T) {
	for _, tc := range []struct {
		name    string
		usage   albedo.Usage
		compact bool
	}{
		{"provider counted more than the estimate", albedo.Usage{InputTokens: ptr[int64](5500)}, true},
		{"no usage: the estimate alone", albedo.Usage{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &summarising{t: t, turn: func() fakes.Reply {
				reply := fakes.Text(strings.Repeat("long answer ", 700))
				reply.Usage = tc.usage
				return reply
			}}
			r := newRig(t, s.script)
			r.windowed(smallWindow)
			r.sessionAfter(respProvider, "first", "second")
			if got := s.summaries() == 1; got != tc.compact {
				t.Errorf("%d summary requests; want compaction %v", s.summaries(), tc.compact)
			}
		})
	}
}

func TestAutomaticCompactionFailures(t *testing.T) {
	providerDown := func() fakes.Reply {
		return fakes.Fail(&albedo.Error{Code: albedo.EProvider, Message: `provider "resp" answered 500: summary service down`})
	}
	empty := func() fakes.Reply { return fakes.Text("   ") }
	for _, tc := range []struct {
		name    string
		fail    func() fakes.Reply
		trigger float64
		answer  int // bytes of the first message's answer
		// fits: the request is still below the window, so it is sent.
		fits  bool
		cause string
	}{
		{"summary fails, request fits", providerDown, 50, 14000, true, ""},
		{"empty summary, request fits", empty, 50, 14000, true, ""},
		{"summary fails, request too big", providerDown, 90, 30000, false, "summary service down"},
		{"empty summary, request too big", empty, 90, 30000, false, "with no text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := &toolRounds{t: t, rounds: 1, fail: tc.fail}
			first := true
			r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
				if first && !isSummary(t, req) {
					first = false
					return fakes.Text(strings.Repeat("z", tc.answer))
				}
				return script.script(req)
			})
			r.tune = func(o *engine.Options) { o.Compaction = albedo.CompactionSettings{TriggerPercent: &tc.trigger} }
			r.windowed(smallWindow)
			sess := r.session(respProvider)
			r.turn(sess.ID, "first")
			before := r.provider.RequestCount()
			r.turn(sess.ID, "second")
			reqs := r.provider.Requests()[before:]
			var pattern []bool
			for _, q := range reqs {
				pattern = append(pattern, isSummary(t, q))
			}
			errs := ofKind(r.history(sess.ID), albedo.KindError)
			if tc.fits {
				// Each turn request is preceded by a new try at the summary.
				if want := []bool{true, false, true, false}; fmt.Sprint(pattern) != fmt.Sprint(want) {
					t.Errorf("requests (summary?) %v; want %v", pattern, want)
				}
				if len(errs) != 0 {
					t.Errorf("errors %v; want none", errs)
				}
			} else {
				if want := []bool{true}; fmt.Sprint(pattern) != fmt.Sprint(want) {
					t.Errorf("requests (summary?) %v; want only the summary request", pattern)
				}
				if len(errs) != 1 || !strings.Contains(errs[0].Text, tc.cause) || !strings.Contains(errs[0].Text, "does not fit the model's context window") {
					t.Errorf("errors %v; want one naming %q", errs, tc.cause)
				}
			}
			if _, err := r.store.Compaction(r.ctx, sess.ID); albedo.ErrorCode(err) != albedo.ENotFound {
				t.Errorf("a failed summary left a compaction state: %v", err)
			}
		})
	}
}

func TestForcedCompactionRequestsAreLedgerRows(t *testing.T) {
	r := newRig(t, thirdTooLargeOnce(t))
	sess := r.sessionAfter(chatProvider, "first", "second")
	page, err := r.svc.Requests(r.ctx, sess.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	before := len(page.Rows)
	r.turn(sess.ID, "third")
	page, err = r.svc.Requests(r.ctx, sess.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range page.Rows[before:] {
		got = append(got, string(row.Kind)+"/"+string(row.Outcome))
	}
	want := []string{"turn/error", "summary/ok", "turn/ok", "turn/ok"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ledger of the refused turn %v; want %v", got, want)
	}
	if rows := page.Rows[before:]; len(rows) == 4 && rows[1].Items != 8 {
		t.Errorf("the summary row carries %d items; want the 8 it summarised", rows[1].Items)
	}
}

func TestCompactionSettingsProblemsAreShown(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings albedo.CompactionSettings
		want     []string // each is in one problem; none means no problem
	}{
		{"defaults", albedo.CompactionSettings{}, nil},
		{"valid", albedo.CompactionSettings{TriggerPercent: ptr(80.0), TailPercent: ptr(30.0)}, nil},
		{"trigger above 100", albedo.CompactionSettings{TriggerPercent: ptr(150.0)}, []string{"triggerPercent", "not 150: using 90"}},
		{"trigger zero", albedo.CompactionSettings{TriggerPercent: ptr(0.0)}, []string{"triggerPercent", "not 0: using 90"}},
		{"tail zero", albedo.CompactionSettings{TailPercent: ptr(0.0)}, []string{"tailPercent", "not 0: using 25"}},
		{"tail 100", albedo.CompactionSettings{TailPercent: ptr(100.0)}, []string{"tailPercent", "not 100: using 25"}},
		{"tail above trigger", albedo.CompactionSettings{TriggerPercent: ptr(50.0), TailPercent: ptr(60.0)}, []string{"tailPercent (60) must be below triggerPercent (50)"}},
		{"unreadable", albedo.CompactionSettings{Problem: "compaction settings ignored: bad"}, []string{"compaction settings ignored: bad"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			r.tune = func(o *engine.Options) { o.Compaction = tc.settings }
			r.windowed(smallWindow)
			sess := r.session(respProvider)
			glances, err := r.svc.Glances(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			var shown []string
			for _, g := range glances {
				if g["extension"] == "context" {
					for _, p := range g["problems"].([]any) {
						shown = append(shown, p.(string))
					}
				}
			}
			rep, err := r.svc.Context(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, list := range [][]string{shown, rep.Problems} {
				if len(tc.want) == 0 && len(list) != 0 {
					t.Errorf("problems %q; want none", list)
				}
				for _, w := range tc.want {
					if !strings.Contains(strings.Join(list, "\n"), w) {
						t.Errorf("problems %q; want one saying %q", list, w)
					}
				}
			}
		})
	}
}

func TestCompactCommandKeepsTheTailOfTheWindow(t *testing.T) {
	for _, tc := range []struct {
		name string
		// answer is the size of each answer in bytes; with a 6,000-token
		// window the tail is 1,500 tokens.
		answer int
		// users is how many user messages the summary should stand for,
		// 0 when there is nothing to compact.
		users int
	}{
		{"three small units all fit in the tail", 100, 0},
		{"units of ~650 tokens: the newest two stay", 2500, 1},
		{"units larger than the tail: only the newest stays", 8000, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &summarising{t: t, turn: func() fakes.Reply { return fakes.Text(strings.Repeat("a", tc.answer)) }}
			r := newRig(t, s.script)
			r.tune = func(o *engine.Options) { o.Compaction = albedo.CompactionSettings{TriggerPercent: ptr(100.0)} }
			r.windowed(smallWindow * 10)
			sess := r.sessionAfter(respProvider, "one", "two", "three")
			// The window shrinks (as after a /model switch) so that the
			// tail share of it is 1,500 tokens.
			r.windowed(smallWindow)
			before := r.provider.RequestCount()
			out, err := r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil)
			if err != nil || out.Compact == nil {
				t.Fatalf("/compact = %+v, %v", out, err)
			}
			res := out.Compact
			if res.Started != (tc.users > 0) {
				t.Fatalf("/compact = %+v; want started %v", res, tc.users > 0)
			}
			r.waitIdle(sess.ID)
			c, err := r.store.Compaction(r.ctx, sess.ID)
			if tc.users == 0 {
				if n := r.provider.RequestCount() - before; n != 0 || albedo.ErrorCode(err) != albedo.ENotFound {
					t.Errorf("nothing to compact made %d requests and state %+v, %v", n, c, err)
				}
				return
			}
			if err != nil || c.Users != tc.users {
				t.Errorf("compaction state %+v, %v; want %d user messages summarised", c, err, tc.users)
			}
		})
	}
}

func TestInterruptDuringAnAutomaticSummaryChangesNothing(t *testing.T) {
	entered := make(chan struct{}, 1)
	r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		if isSummary(t, req) {
			entered <- struct{}{}
			return fakes.Hang()
		}
		return fakes.Text(strings.Repeat("long answer ", 2000))
	})
	r.windowed(smallWindow)
	sess := r.session(respProvider)
	r.turn(sess.ID, "first")
	r.send(sess.ID, "second")
	<-entered
	if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)
	r.wantNothingCompacted(sess.ID, "after an interrupted summary")
	items := r.history(sess.ID)
	if last := items[len(items)-1]; last.Kind != albedo.KindTurn || last.Text != albedo.TurnInterrupted {
		t.Errorf("the turn ended with %v %q; want interrupted", last.Kind, last.Text)
	}
}

func TestTheProvidersCountIsNotUsedAcrossACompaction(t *testing.T) {
	var report atomic.Bool
	s := &summarising{t: t, turn: func() fakes.Reply {
		reply := fakes.Text(strings.Repeat("a", 2500))
		if report.Load() {
			// Counted before /compact: no longer what a request carries.
			reply.Usage = albedo.Usage{InputTokens: ptr[int64](5500)}
		}
		return reply
	}}
	r := newRig(t, s.script)
	r.windowed(smallWindow)
	sess := r.sessionAfter(respProvider, "one", "two")
	report.Store(true)
	r.turn(sess.ID, "three")
	report.Store(false)
	if out, err := r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil); err != nil || out.Compact == nil || !out.Compact.Started {
		t.Fatalf("/compact = %v, %v", out, err)
	}
	r.waitIdle(sess.ID)
	r.turn(sess.ID, "four")
	if n := s.summaries(); n != 1 {
		t.Errorf("%d summary requests; want only the /compact one (the count from before it must not trigger another)", n)
	}
	items := r.history(sess.ID)
	if errs := ofKind(items, albedo.KindError); len(errs) != 0 || items[len(items)-1].Text != albedo.TurnFinished {
		t.Errorf("the turn after /compact ended with %q, errors %v; want it finished", items[len(items)-1].Text, errs)
	}
}

func TestARequestOverTheWindowEvictsAllButTheNewestUnit(t *testing.T) {
	turns := 0
	s := &summarising{t: t, turn: func() fakes.Reply {
		turns++
		reply := fakes.Text("short")
		if turns == 3 {
			// The provider counts far more than the estimate: the
			// small units all fit in the tail share, yet the next request
			// would not fit the window.
			reply.Usage = albedo.Usage{InputTokens: ptr[int64](6500)}
		}
		return reply
	}}
	r := newRig(t, s.script)
	r.windowed(smallWindow)
	sess := r.sessionAfter(respProvider, "one", "two", "three", "four")
	c, err := r.store.Compaction(r.ctx, sess.ID)
	if n := s.summaries(); n != 1 || err != nil || c.Users != 3 {
		t.Errorf("%d summaries, state %+v, %v; want one summary of all but the newest unit", n, c, err)
	}
	r.wantNoErrors(sess.ID, "after the compaction")
}
