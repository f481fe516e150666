package console

import (
	"fmt"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gdamore/tcell/v2"
)

// largeSession returns n events of a long working session: prompts,
// thinking, cells with output and traces, answers.
func largeSession(n int) []wire.Event {
	events := make([]wire.Event, 0, n)
	for seq := int64(1); len(events) < n; seq++ {
		call := fmt.Sprintf("call-%d", seq)
		var ev wire.Event
		switch seq % 5 {
		case 1:
			ev = wire.Event{Type: "user", Text: fmt.Sprintf("step %d: look at the failing test and fix what it finds", seq)}
		case 2:
			ev = wire.Event{Type: "thinking", Text: strings.Repeat("The test reads the config and compares it. ", 6)}
		case 3:
			ev = wire.Event{Type: "tool_call", CallID: call, Name: "python", Code: "import pathlib\nfor p in pathlib.Path('.').glob('*.go'):\n    print(p, len(p.read_text()))"}
		case 4:
			ev = wire.Event{Type: "tool", CallID: fmt.Sprintf("call-%d", seq-1), Name: "python", Status: "ok",
				Result: `{"status":"ok","output":"` + strings.Repeat(`main.go 1234\n`, 30) + `"}`,
				Trace:  &wire.Trace{Activities: []wire.Activity{{Kind: "read", Target: "main.go"}}, Changes: []wire.Change{{Path: "main.go"}}}}
		case 0:
			ev = wire.Event{Type: "message", Text: strings.Repeat("I changed the comparison so that it ignores the order of keys. ", 4)}
		}
		ev.Seq = seq
		events = append(events, ev)
	}
	return events
}

// benchScreen returns a 120×40 simulation screen.
func benchScreen(b *testing.B) tcell.SimulationScreen {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	s.SetSize(120, 40)
	return s
}

// BenchmarkRenderLargeTranscript measures a 5,000-event session: building
// the transcript model, drawing the first frame (nothing laid out yet),
// drawing a frame again, scrolling by pages through it, and drawing after a
// resize.
func BenchmarkRenderLargeTranscript(b *testing.B) {
	events := largeSession(5000)
	b.Run("model", func(b *testing.B) {
		for b.Loop() {
			var tr Transcript
			tr.Reset(events)
		}
	})
	b.Run("first-frame", func(b *testing.B) {
		s := benchScreen(b)
		for b.Loop() {
			_, v := benchView(events)
			v.Draw(s)
		}
	})
	b.Run("frame", func(b *testing.B) {
		s := benchScreen(b)
		_, v := benchView(events)
		v.Draw(s)
		for b.Loop() {
			v.Draw(s)
		}
	})
	b.Run("scroll-page", benchScrollPage(events))
	b.Run("resize", func(b *testing.B) {
		s := benchScreen(b)
		var tr Transcript
		tr.Reset(events)
		v := NewTranscriptView(&tr)
		w := 120
		for b.Loop() {
			w = 200 - w // 120, 80, 120, ...
			v.SetRect(0, 0, w, 40)
			v.Draw(s)
		}
	})
	b.Run("delta", func(b *testing.B) {
		s := benchScreen(b)
		tr, v := benchView(events)
		n := 0
		for b.Loop() {
			// An answer of 100 fragments streams in, then completes.
			if n++; n%100 == 0 {
				tr.Apply(wire.Event{Type: "message", Seq: int64(10000 + n), Text: "done"})
			}
			tr.Apply(wire.Event{Type: "delta", Kind: "text", Text: "more words "})
			v.Draw(s)
		}
	})
}

// benchScrollPage measures paging up through a transcript of events, one
// page a frame, from the end again once the top is reached.
func benchScrollPage(events []wire.Event) func(b *testing.B) {
	return func(b *testing.B) {
		s := benchScreen(b)
		_, v := benchView(events)
		v.Draw(s)
		for b.Loop() {
			v.ScrollBy(-v.PageSize())
			if v.current() == (anchor{}) {
				v.ScrollToEnd()
			}
			v.Draw(s)
		}
	}
}

// benchView lays out a transcript of events in a 120×40 view.
func benchView(events []wire.Event) (*Transcript, *TranscriptView) {
	tr := &Transcript{}
	tr.Reset(events)
	v := NewTranscriptView(tr)
	v.SetRect(0, 0, 120, 40)
	return tr, v
}

// markdownAnswer is an answer as models write them: a heading, a list, a
// table and a fenced Python block.
const markdownAnswer = "## Result\n\nThe test compared **maps** in order; it now sorts `keys` first:\n\n" +
	"- read the config\n- sort the keys\n- compare\n\n| file | lines |\n|------|------:|\n| main.go | 1234 |\n| config.go | 87 |\n\n" +
	"```python\nimport pathlib\nfor p in sorted(pathlib.Path('.').glob('*.go')):\n    print(p, len(p.read_text()))  # sizes\n```\n\nSee [the docs](https://example.com/docs) for more."

// markdownSession is largeSession with every answer written in markdown.
func markdownSession(n int) []wire.Event {
	events := largeSession(n)
	for i := range events {
		if events[i].Type == "message" {
			events[i].Text = markdownAnswer
		}
	}
	return events
}

// BenchmarkRenderMarkdownTranscript measures a 5,000-event session whose
// answers are markdown: the first frame (nothing laid out yet), paging up
// through it (each page lays out answers it has not shown), and an answer
// of markdown streaming in fragment by fragment, re-rendered on each.
func BenchmarkRenderMarkdownTranscript(b *testing.B) {
	events := markdownSession(5000)
	b.Run("first-frame", func(b *testing.B) {
		s := benchScreen(b)
		tr := &Transcript{}
		tr.Reset(events)
		for b.Loop() {
			for _, blk := range tr.Blocks {
				blk.changed()
			}
			v := NewTranscriptView(tr)
			v.SetRect(0, 0, 120, 40)
			v.Draw(s)
		}
	})
	b.Run("scroll-page", benchScrollPage(events))
	b.Run("delta", func(b *testing.B) {
		s := benchScreen(b)
		tr, v := benchView(events)
		fragments := strings.SplitAfter(markdownAnswer, " ")
		n := 0
		for b.Loop() {
			if n%len(fragments) == 0 && n > 0 {
				tr.Apply(wire.Event{Type: "message", Seq: int64(10000 + n), Text: markdownAnswer})
			}
			tr.Apply(wire.Event{Type: "delta", Kind: "text", Text: fragments[n%len(fragments)]})
			n++
			v.Draw(s)
		}
	})
}
