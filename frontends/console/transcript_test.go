package console

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
)

func running(on bool) *bool { return &on }

func TestTranscriptApply(t *testing.T) {
	tests := []struct {
		name   string
		events []wire.Event
		want   string
		// check, when set, looks further at the result.
		check func(t *testing.T, tr *Transcript)
	}{
		{
			name: "streamed answer completes in place",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "hi"},
				{Type: "delta", Kind: "reasoning", Text: "let me "},
				{Type: "delta", Kind: "reasoning", Text: "think"},
				{Type: "delta", Kind: "text", Text: "hel"},
				{Type: "delta", Kind: "text", Text: "lo"},
			},
			want: "user#1 hi\nthinking~ let me think\nassistant~ hello\n",
		},
		{
			name: "what streamed before the stream dropped gives way to what came since",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "hi"},
				{Type: "delta", Kind: "reasoning", Text: "let me"},
				{Type: "delta", Kind: "text", Text: "half an ans"},
			},
			check: func(t *testing.T, tr *Transcript) {
				tr.DropLive()
				for _, ev := range []wire.Event{
					{Type: "user", Seq: 2, Text: "albedo restarted while this turn was running.", Source: "daemon restart"},
					{Type: "delta", Kind: "text", Text: "whole "},
					{Type: "message", Seq: 3, Text: "whole answer"},
				} {
					tr.Apply(ev)
				}
				want := "user#1 hi\nuser#2 daemon restart albedo restarted while this turn was running.\nassistant#3 whole answer\n"
				if got := tr.String(); got != want {
					t.Errorf("after the reconnection:\n%s\nwant:\n%s", got, want)
				}
			},
			want: "user#1 hi\nthinking~ let me\nassistant~ half an ans\n",
		},
		{
			name: "a retry notice shows whole until the reply streams, then leaves a trace",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "hi"},
				{Type: "delta", Kind: "retry", Text: "retrying (1/4) in 0.6 s: provider answered 503"},
				{Type: "delta", Kind: "retry", Text: "retrying (2/4) in 1.2 s: provider answered 502"},
				{Type: "status", Usage: &wire.Usage{InputTokens: tokenCount(1)}},
			},
			want: "user#1 hi\nretry~ retrying (2/4) in 1.2 s: provider answered 502\n",
			check: func(t *testing.T, tr *Transcript) {
				if tr.Retry != "retrying (2/4) in 1.2 s: provider answered 502" {
					t.Errorf("retry notice %q", tr.Retry)
				}
				tr.Apply(wire.Event{Type: "delta", Kind: "text", Text: "hello"})
				if tr.Retry != "" {
					t.Errorf("the retry notice %q stays once the reply streams", tr.Retry)
				}
				tr.Apply(wire.Event{Type: "delta", Kind: "retry", Text: "retrying (1/4) in 0.5 s: provider answered 500"})
				tr.Apply(wire.Event{Type: "error", Seq: 2, Text: "provider answered 500"})
				if tr.Retry != "" {
					t.Errorf("the retry notice %q stays after the turn", tr.Retry)
				}
				want := "user#1 hi\nretry retrying (2/4) in 1.2 s: provider answered 502 answered\nassistant~ hello\n" +
					"retry retrying (1/4) in 0.5 s: provider answered 500 failed\nerror#2 provider answered 500\n"
				if got := tr.String(); got != want {
					t.Errorf("after the retries:\n%s\nwant:\n%s", got, want)
				}
			},
		},
		{
			name: "a turn's end says how long it took since its first message",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "hi", Timestamp: 1_000},
				{Type: "user", Seq: 2, Text: "and this", Timestamp: 3_000},
				{Type: "turn", Seq: 3, Status: "finished", Timestamp: 13_500},
				{Type: "user", Seq: 4, Text: "again", Timestamp: 20_000},
				{Type: "turn", Seq: 5, Status: "interrupted", Timestamp: 20_840},
				{Type: "turn", Seq: 6, Status: "finished", Timestamp: 30_000},
			},
			want: "user#1 hi\nuser#2 and this\nturn#3 finished 12.5s\nuser#4 again\nturn#5 interrupted 840ms\n",
		},
		{
			name: "durable events finish live blocks",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "hi"},
				{Type: "delta", Kind: "reasoning", Text: "hmm"},
				{Type: "delta", Kind: "text", Text: "hel"},
				{Type: "thinking", Seq: 2, Text: "hmm."},
				{Type: "message", Seq: 3, Text: "hello"},
				{Type: "turn", Seq: 4, Status: "finished"},
			},
			want: "user#1 hi\nthinking#2 hmm.\nassistant#3 hello\n",
		},
		{
			name: "a cut answer says why under it",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "hi"},
				{Type: "delta", Kind: "text", Text: "{\""},
				{Type: "message", Seq: 2, Text: "{\"", Truncated: true, Notice: "answer cut: the model hit its output limit"},
			},
			want: "user#1 hi\nassistant#2 {\"\nnotice#2 answer cut: the model hit its output limit\n",
		},
		{
			name: "a cell runs, then its result arrives",
			events: []wire.Event{
				{Type: "delta", Kind: "tool_call", Text: `{"code":`},
				{Type: "tool_call", Seq: 2, CallID: "c1", Name: "python", Code: "print(1)"},
				{Type: "tool", Seq: 3, CallID: "c1", Name: "python", Code: "print(1)", Status: "ok",
					Result: `{"status":"ok","output":"1\n"}`,
					Trace:  &wire.Trace{Activities: []wire.Activity{{Kind: "read", Target: "a.txt"}}}},
			},
			want: "tool#2 python print(1) ok read a.txt out=1\n",
		},
		{
			name: "a running cell",
			events: []wire.Event{
				{Type: "tool_call", Seq: 2, CallID: "c1", Name: "python", Code: "sleep()"},
			},
			want: "tool~#2 python sleep()\n",
		},
		{
			name: "a running cell shows what it prints until its result",
			events: []wire.Event{
				{Type: "tool_call", Seq: 2, CallID: "c1", Name: "python", Code: "work()"},
				{Type: "output", Call: 2, Text: "step 1\n"},
				{Type: "output", Call: 9, Text: "another cell's\n"},
				{Type: "output", Call: 2, Text: "step 2\n"},
			},
			want: "tool~#2 python work()\n",
			check: func(t *testing.T, tr *Transcript) {
				b := tr.Blocks[0]
				if b.Printed != "step 1\nstep 2\n" {
					t.Errorf("printed = %q", b.Printed)
				}
				screen := plainRows(b, 60, false)
				if !strings.Contains(screen, "├ output\n│ step 1\n│ step 2") {
					t.Errorf("the running cell shows:\n%s", screen)
				}
				tr.Apply(wire.Event{Type: "tool", Seq: 3, CallID: "c1", Code: "work()", Status: "ok", Result: `{"status":"ok","output":"step 1\nstep 2\n"}`})
				if b.Printed != "" || b.Cell == nil {
					t.Errorf("the result did not replace the live output: %+v", b)
				}
			},
		},
		{
			name: "queued messages stay last until delivered",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "first"},
				{Type: "tool_call", Seq: 2, CallID: "c1", Name: "python", Code: "x"},
				{Type: "queued", Text: "second"},
				{Type: "tool", Seq: 3, CallID: "c1", Code: "x", Status: "ok", Result: `{"status":"ok","output":""}`},
				{Type: "delta", Kind: "text", Text: "partial"},
				{Type: "user", Seq: 4, Text: "second"},
			},
			want: "user#1 first\ntool#2 python x ok\nassistant~ partial\nuser#4 second\n",
		},
		{
			name: "an interrupted turn cuts live blocks and leaves a marker",
			events: []wire.Event{
				{Type: "delta", Kind: "text", Text: "half"},
				{Type: "turn", Seq: 5, Status: "interrupted"},
			},
			want: "assistant! half\nturn#5 interrupted\n",
		},
		{
			name: "errors and notes from albedo",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "albedo restarted", Source: "daemon restart"},
				{Type: "error", Seq: 2, Text: "ask fixture: 500"},
				{Type: "turn", Seq: 3, Status: "failed"},
			},
			want: "user#1 daemon restart albedo restarted\nerror#2 ask fixture: 500\nturn#3 failed\n",
		},
		{
			name: "a compaction shows its figures and summary",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: "third"},
				{Type: "compaction", Seq: 2, Timestamp: 7, Summary: "we fixed main.go", Items: 12, TokensBefore: 3400, TokensAfter: 800},
				{Type: "message", Seq: 3, Text: "done"},
			},
			want: "user#1 third\ncompaction#2 12 items · ~3.4k → ~800 tokens we fixed main.go\nassistant#3 done\n",
		},
		{
			name: "a broken result is shown plainly",
			events: []wire.Event{
				{Type: "tool", Seq: 3, CallID: "c9", Status: "ok", Result: "{"},
			},
			want: "tool#3 ok\n",
			check: func(t *testing.T, tr *Transcript) {
				if b := tr.Blocks[0]; b.Cell == nil || !strings.Contains(b.Cell.Error, "could not be read") {
					t.Errorf("cell = %+v, want an error saying the result could not be read", b.Cell)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr Transcript
			for _, ev := range tt.events {
				tr.Apply(ev)
			}
			if got := tr.String(); got != tt.want {
				t.Errorf("transcript:\n%s\nwant:\n%s", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, &tr)
			}
		})
	}
}

func TestTranscriptStatusAndReset(t *testing.T) {
	var tr Transcript
	tr.Apply(wire.Event{Type: "status", Running: running(true)})
	tr.Apply(wire.Event{Type: "status", Usage: &wire.Usage{InputTokens: tokenCount(100), OutputTokens: tokenCount(8)}})
	tr.Apply(wire.Event{Type: "status", Usage: &wire.Usage{InputTokens: tokenCount(150), OutputTokens: tokenCount(9)}, Used: tokenCount(160), Window: tokenCount(1000), Percent: percent(16)})
	if !tr.Running || tr.Usage != (Usage{Context: 160, Window: 1000, Percent: 16, Input: 250, Output: 17, Requests: 2}) {
		t.Errorf("running %v usage %+v", tr.Running, tr.Usage)
	}
	tr.Apply(wire.Event{Type: "delta", Kind: "text", Text: "x"})
	tr.Reset([]wire.Event{{Type: "user", Seq: 1, Text: "a"}, {Type: "message", Seq: 2, Text: "b"}})
	if got, want := tr.String(), "user#1 a\nassistant#2 b\n"; got != want {
		t.Errorf("after reset:\n%s\nwant:\n%s", got, want)
	}
	// The live block from before the reset is gone: a new delta starts anew.
	tr.Apply(wire.Event{Type: "delta", Kind: "text", Text: "y"})
	if got := tr.Blocks[len(tr.Blocks)-1].String(); got != "assistant~ y" {
		t.Errorf("last block = %q", got)
	}
	tr.Notice("switched", false)
	tr.Apply(wire.Event{Type: "queued", Text: "q"})
	tr.Notice("later", true)
	if got := tr.Queued(); len(got) != 1 || got[0] != "q" {
		t.Errorf("queued = %q", got)
	}
	if last := tr.Blocks[len(tr.Blocks)-1]; last.Kind != BlockQueued {
		t.Errorf("last block is %v, want the queued message", last.Kind)
	}
}

// String renders the blocks as plain text, one per line with its kind, for
// the tests to compare.
func (t *Transcript) String() string {
	var b strings.Builder
	for _, x := range t.Blocks {
		b.WriteString(x.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// String describes the block in one line.
func (b *Block) String() string {
	var s strings.Builder
	s.WriteString(b.Kind.String())
	if b.Live {
		s.WriteString("~")
	}
	if b.Cut {
		s.WriteString("!")
	}
	if b.Seq != 0 {
		s.WriteString("#")
		s.WriteString(itoa(b.Seq))
	}
	for _, part := range []string{b.Source, b.Name, b.Code, b.Figures, b.Text, b.Status, b.Trace} {
		if part != "" {
			s.WriteString(" ")
			s.WriteString(part)
		}
	}
	if b.Took > 0 {
		s.WriteString(" " + client.FormatDuration(b.Took))
	}
	if b.Cell != nil && b.Cell.Output != "" {
		s.WriteString(" out=")
		s.WriteString(strings.TrimSpace(b.Cell.Output))
	}
	return s.String()
}

// String names a block kind.
func (k BlockKind) String() string {
	names := [...]string{BlockUser: "user", BlockQueued: "queued", BlockAssistant: "assistant", BlockThinking: "thinking",
		BlockTool: "tool", BlockError: "error", BlockTurn: "turn", BlockNotice: "notice", BlockRetry: "retry", BlockCompaction: "compaction"}
	if k >= 0 && int(k) < len(names) {
		return names[k]
	}
	return "block"
}
