package console

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gdamore/tcell/v2"
)

func TestConsoleShowsTheContextAtOnceWhenItAttaches(t *testing.T) {
	tests := []struct {
		name    string
		usage   wire.UsageTotals
		context wire.Context
		want    string
	}{
		{"window known", wire.UsageTotals{InputTokens: 84300, OutputTokens: 5, Requests: 3},
			wire.Context{Used: new(int64(84000)), Window: new(int64(136000)), Percent: new(61.76)},
			"ctx 62% · 84k/136k · 84.3k in · 5 out"},
		{"window unknown", wire.UsageTotals{InputTokens: 84300, OutputTokens: 5, Requests: 3},
			wire.Context{Used: new(int64(84000))},
			"ctx 84k · 84.3k in · 5 out"},
		{"no request yet", wire.UsageTotals{}, wire.Context{Window: new(int64(136000))}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeDaemon(t)
			f.usage["s1"], f.contexts["s1"] = tc.usage, tc.context
			s, _ := startConsole(t, f, Options{Session: "s1"})
			// The header shows the title once the daemon's answers are in.
			screen := s.waitFor(t, "a title", "○ idle")
			if !f.seen("GET /sessions/s1/context") {
				t.Errorf("the console did not ask for the context; requests: %q", f.requests)
			}
			if tc.want == "" {
				if strings.Contains(screen, "ctx ") {
					t.Errorf("a session without requests shows a context figure:\n%s", screen)
				}
				return
			}
			s.waitFor(t, tc.want)
		})
	}
}

func TestConsoleTakesTheDaemonsFiguresWhenATurnEnds(t *testing.T) {
	f := newFakeDaemon(t)
	f.usage["s1"] = wire.UsageTotals{InputTokens: 84300, OutputTokens: 5, Requests: 3}
	f.contexts["s1"] = wire.Context{Used: new(int64(84000)), Window: new(int64(136000)), Percent: new(61.76)}
	f.onSend = func(f *fakeDaemon, id, text string) bool {
		seq := f.nextSeq(id)
		f.publish(id, statusEvent(true), wire.Event{Type: "user", Seq: seq, Text: text},
			wire.Event{Type: "message", Seq: seq + 1, Text: "summarised"},
			wire.Event{Type: "status", Usage: &wire.Usage{InputTokens: new(int64(1000)), OutputTokens: new(int64(10))},
				Used: new(int64(85000)), Window: new(int64(136000)), Percent: new(62.5)})
		// A request the live events did not show, and a context that shrank.
		f.mu.Lock()
		u := f.usage[id]
		u.InputTokens, u.OutputTokens, u.Requests = u.InputTokens+500, u.OutputTokens+20, u.Requests+1
		f.usage[id] = u
		f.contexts[id] = wire.Context{Used: new(int64(3000)), Window: new(int64(136000)), Percent: new(2.2)}
		f.mu.Unlock()
		f.publish(id, wire.Event{Type: "turn", Seq: seq + 2, Status: "finished"}, statusEvent(false))
		return false
	}
	s, _ := startConsole(t, f, Options{Session: "s1"})
	s.waitFor(t, "ctx 62% · 84k/136k · 84.3k in · 5 out")
	s.typeText("sum it up")
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	s.waitFor(t, "summarised", "ctx 2% · 3k/136k · 85.8k in · 35 out", "○ idle")
}
