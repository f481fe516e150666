package console

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func TestOutputLinesHighlightTheCodeOfATraceback(t *testing.T) {
	th := defaultTheme()
	traceback := "Traceback (most recent call last):\n" +
		"  File \"<cell>\", line 2, in <module>\n" +
		"    total = sum(values) + None\n" +
		"TypeError: unsupported operand type(s)"
	rows := th.outputLines(traceback, th.fail)
	if len(rows) != 4 {
		t.Fatalf("got %d rows, want 4: %v", len(rows), rows)
	}
	for i, want := range strings.Split(traceback, "\n") {
		if got := rows[i].plain(); got != want {
			t.Errorf("row %d reads %q, want %q", i, got, want)
		}
	}
	wantStyles(t, rows, []styled{
		{"Traceback", th.fail},
		{`File "<cell>"`, th.dim},
		{"sum", th.synBuiltin},
		{"None", th.synConstant},
		{"total", th.code},
		{"TypeError", th.fail},
	})
}

func TestOutputLinesLeaveOtherOutputAlone(t *testing.T) {
	th := defaultTheme()
	for _, out := range []string{
		"import this is not code\n    if it is indented\nNone of it",
		"File \"x\" is not a frame line\n    so this stays plain",
		"",
	} {
		rows := th.outputLines(out, th.text)
		for i, r := range rows {
			if len(r) != 1 || r[0].style != th.text || r[0].text != strings.Split(out, "\n")[i] {
				t.Errorf("%q: row %d = %v, want it plain", out, i, r)
			}
		}
	}
}

func TestACellsValueIsHighlightedAsPython(t *testing.T) {
	th := defaultTheme()
	b := &Block{Kind: BlockTool, Name: "python", Code: "answer", Cell: &wire.CellResult{Status: "ok", Value: "{'total': 42, 'missing': None}"}}
	rows := b.rows(layoutOptions{width: 60, theme: th})
	if !strings.Contains(plainRows(b, 60, false), "│ = {'total': 42, 'missing': None}") {
		t.Fatalf("the value is not shown whole:\n%s", plainRows(b, 60, false))
	}
	wantStyles(t, rows[len(rows)-3:], []styled{{"'total'", th.synString}, {"42", th.synNumber}, {"None", th.synConstant}})
}
