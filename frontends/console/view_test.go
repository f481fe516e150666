package console

import (
	"fmt"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gdamore/tcell/v2"
)

// screenText returns the simulation screen's rows as text.
func screenText(s tcell.SimulationScreen) []string {
	cells, w, h := s.GetContents()
	rows := make([]string, h)
	for y := 0; y < h; y++ {
		var b strings.Builder
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(string(c.Runes))
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return rows
}

// numbered makes a transcript of n short user messages "m0".."m(n-1)".
func numbered(n int) *Transcript {
	var tr Transcript
	for i := range n {
		tr.Apply(wire.Event{Type: "user", Seq: int64(i + 1), Text: fmt.Sprintf("m%d", i)})
	}
	return &tr
}

// drawView draws v into a w×h simulation screen.
func drawView(t testing.TB, v *TranscriptView, w, h int) tcell.SimulationScreen {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(w, h)
	v.SetRect(0, 0, w, h)
	v.Draw(s)
	s.Show()
	return s
}

func TestViewFollowsAndScrolls(t *testing.T) {
	tr := numbered(10) // 2 rows each: a blank one and the message
	v := NewTranscriptView(tr)
	rows := screenText(drawView(t, v, 20, 6))
	if got := strings.Join(rows, "|"); !strings.Contains(got, "❯ m9") || strings.Contains(got, "m6") {
		t.Fatalf("following view shows %q, want the last three messages", got)
	}
	v.ScrollBy(-4)
	if v.Following() {
		t.Error("still following after scrolling up")
	}
	rows = screenText(drawView(t, v, 20, 6))
	if got := strings.Join(rows, "|"); !strings.Contains(got, "m5") || strings.Contains(got, "m9") || !strings.Contains(got, "more below") {
		t.Errorf("scrolled view shows %q", got)
	}
	v.ScrollBy(100)
	if !v.Following() {
		t.Error("not following after scrolling to the end")
	}
	v.ScrollBy(-100)
	rows = screenText(drawView(t, v, 20, 6))
	if !strings.Contains(rows[1], "m0") {
		t.Errorf("start of the transcript shows %q", rows)
	}
	// New blocks do not move a view that is not following.
	tr.Apply(wire.Event{Type: "user", Seq: 11, Text: "m10"})
	rows = screenText(drawView(t, v, 20, 6))
	if !strings.Contains(rows[1], "m0") {
		t.Errorf("after a new block the view shows %q", rows)
	}
}

func TestViewShortTranscriptStartsAtTop(t *testing.T) {
	v := NewTranscriptView(numbered(1))
	rows := screenText(drawView(t, v, 20, 6))
	if !strings.Contains(rows[1], "m0") {
		t.Errorf("rows = %q", rows)
	}
	v.ScrollBy(-3)
	if !v.Following() {
		t.Error("a transcript that fits stopped following")
	}
}

func TestViewRewrapsOnResize(t *testing.T) {
	var tr Transcript
	tr.Apply(wire.Event{Type: "message", Seq: 1, Text: strings.Repeat("word ", 12)})
	v := NewTranscriptView(&tr)
	wide := screenText(drawView(t, v, 80, 10))
	narrow := screenText(drawView(t, v, 20, 10))
	count := func(rows []string) (n int) {
		for _, r := range rows {
			n += strings.Count(r, "word")
		}
		return n
	}
	if count(wide) != 12 || count(narrow) != 12 {
		t.Errorf("words shown: %d wide, %d narrow; want 12", count(wide), count(narrow))
	}
	for _, r := range narrow {
		if width(r) > 20 {
			t.Errorf("row %q overflows 20 cells", r)
		}
	}
}
