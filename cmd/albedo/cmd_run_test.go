package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func TestTurnWatcher(t *testing.T) {
	const prompt = "do it"
	tests := []struct {
		name   string
		after  int64
		events []wire.Event
		// taken lists the types the watcher kept.
		taken   string
		wantErr string
	}{
		{
			name: "a finished turn",
			events: []wire.Event{
				{Type: "status"},
				{Type: "user", Seq: 1, Text: prompt},
				{Type: "delta", Kind: "text", Text: "par"},
				{Type: "message", Seq: 2, Text: "first part"},
				{Type: "tool_call", Seq: 3, CallID: "c"},
				{Type: "tool", Seq: 4, CallID: "c"},
				{Type: "message", Seq: 5, Text: "done"},
				{Type: "turn", Seq: 6, Status: "finished"},
				{Type: "status"},
			},
			taken: "user delta message tool_call tool message turn",
		},
		{
			name:  "queued behind a running turn",
			after: 10,
			events: []wire.Event{
				{Type: "tool", Seq: 11, CallID: "old"},
				{Type: "queued", Text: prompt},
				{Type: "user", Seq: 12, Text: prompt},
				{Type: "message", Seq: 13, Text: "both done"},
				{Type: "turn", Seq: 14, Status: "finished"},
			},
			taken: "user message turn",
		},
		{
			name:  "an older turn's marker is not ours",
			after: 3,
			events: []wire.Event{
				{Type: "turn", Seq: 4, Status: "failed"},
				{Type: "user", Seq: 5, Text: prompt},
				{Type: "message", Seq: 6, Text: "fine"},
				{Type: "turn", Seq: 7, Status: "finished"},
			},
			taken: "user message turn",
		},
		{
			name: "a replayed snapshot adds only what is new",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: prompt},
				{Type: "message", Seq: 2, Text: "once"},
				// reconnected: the snapshot again, then more
				{Type: "user", Seq: 1, Text: prompt},
				{Type: "message", Seq: 2, Text: "once"},
				{Type: "user", Seq: 3, Text: "albedo restarted", Source: "daemon restart"},
				{Type: "turn", Seq: 4, Status: "finished"},
			},
			taken: "user message user turn",
		},
		{
			name: "a failed turn",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: prompt},
				{Type: "error", Seq: 2, Text: "provider said no"},
				{Type: "turn", Seq: 3, Status: "failed"},
			},
			taken:   "user error turn",
			wantErr: "the turn failed: provider said no",
		},
		{
			name: "an interrupted turn",
			events: []wire.Event{
				{Type: "user", Seq: 1, Text: prompt},
				{Type: "turn", Seq: 2, Status: "interrupted"},
			},
			taken:   "user turn",
			wantErr: "the turn was interrupted",
		},
		{
			name:    "a turn that has not ended",
			events:  []wire.Event{{Type: "user", Seq: 1, Text: prompt}},
			taken:   "user",
			wantErr: "the turn did not end",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTurnWatcher(prompt, tt.after)
			var taken []string
			for _, ev := range tt.events {
				if w.take(ev) {
					taken = append(taken, ev.Type)
				}
			}
			if got := strings.Join(taken, " "); got != tt.taken {
				t.Errorf("taken %q, want %q", got, tt.taken)
			}
			err := w.err()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestTurnWatcherFindsTheSkillsMessage(t *testing.T) {
	tests := []struct {
		prompt, text string
		want         bool
	}{
		{"ship it", "ship it\n\n<skill name=\"deploy\" source=\".agents/skills/deploy/SKILL.md\">\nbody\n</skill>", true},
		{"", "/deploy\n\n<skill name=\"deploy\" source=\"ALBEDO_HOME/skills/deploy/SKILL.md\">\nbody\n</skill>", true},
		{"ship it", "ship it", false},
		{"ship it", "ship it\n\n<skill name=\"deploy-all\" source=\"x\">\nbody\n</skill>", false},
	}
	for _, tt := range tests {
		w := newTurnWatcher(tt.prompt, 0)
		w.skill = "deploy"
		if got := w.take(wire.Event{Type: "user", Seq: 1, Text: tt.text}); got != tt.want {
			t.Errorf("prompt %q, user item %q: taken %v, want %v", tt.prompt, tt.text, got, tt.want)
		}
	}
}

func TestProgress(t *testing.T) {
	tests := []struct {
		ev   wire.Event
		want string
	}{
		{wire.Event{Type: "tool_call", Seq: 3, Name: "python", Code: "import os\nprint(os.getcwd())"}, "⚙ python #3: import os (+1 lines)\n"},
		{wire.Event{Type: "tool", Result: `{"status":"ok"}`, Trace: &wire.Trace{Changes: []wire.Change{{Path: "/w/a.go", Kind: "modified"}}}}, "  → ok · ~a.go\n"},
		{wire.Event{Type: "tool", Result: `{"status":"error","error":"Traceback\nZeroDivisionError: division by zero"}`}, "  → error: ZeroDivisionError: division by zero\n"},
		{wire.Event{Type: "tool", Result: `{"status":"ok","output":"one\ntwo\n","value":"42","duration_ms":3200}`}, "  → ok 3.2s\n    │ one\n    │ two\n    = 42\n"},
		{wire.Event{Type: "tool", Result: `{"status":"ok","output":"1\n2\n3\n4\n5\n6\n7\n","duration_ms":125000}`}, "  → ok 2m05s\n    │ … 2 earlier lines\n    │ 3\n    │ 4\n    │ 5\n    │ 6\n    │ 7\n"},
		{wire.Event{Type: "error", Text: "provider said no"}, "✗ provider said no\n"},
		{wire.Event{Type: "user", Text: "albedo restarted\nmore", Source: "daemon restart"}, "· daemon restart: albedo restarted\n"},
		{wire.Event{Type: "turn", Status: "interrupted"}, "── turn interrupted\n"},
		{wire.Event{Type: "turn", Status: "finished"}, ""},
		{wire.Event{Type: "message", Text: "the answer goes to stdout"}, ""},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		progress(&b, tt.ev, "/w")
		if b.String() != tt.want {
			t.Errorf("progress(%s) = %q, want %q", tt.ev.Type, b.String(), tt.want)
		}
	}
}

func TestHelpWritesOptionsWithTwoDashes(t *testing.T) {
	for _, command := range []string{"run", "login", "console"} {
		var out bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &out}
		if code := run(t.Context(), e, []string{"help", command}); code != 0 {
			t.Fatalf("help %s exited %d", command, code)
		}
		for _, row := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(row, "  -") && !strings.HasPrefix(row, "  --") {
				t.Errorf("help %s shows an option with one dash: %q", command, row)
			}
		}
		if command == "run" && !strings.Contains(out.String(), "  --session SESSION\n") {
			t.Errorf("help run lacks --session:\n%s", out.String())
		}
	}
}
