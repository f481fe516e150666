package console

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// plainRows lays a block out at width and returns its rows as text.
func plainRows(b *Block, width int, detail bool) string {
	var out []string
	for _, l := range b.rows(layoutOptions{width: width, detail: detail, theme: defaultTheme()}) {
		out = append(out, strings.TrimRight(l.plain(), " "))
	}
	return strings.Join(out, "\n")
}

func TestLayout(t *testing.T) {
	longOutput := strings.Repeat("line\n", 20)
	tests := []struct {
		name   string
		block  *Block
		width  int
		detail bool
		want   string
	}{
		{
			name:  "user message with its checkpoint id",
			block: &Block{Kind: BlockUser, Seq: 3, Text: "fix the bug in main.go please"},
			width: 30,
			want:  "\n❯ fix the bug in main.go    #3\n  please",
		},
		{
			name:  "note from albedo",
			block: &Block{Kind: BlockUser, Text: "albedo restarted", Source: "daemon restart"},
			width: 60,
			want:  "\n⚙ from daemon restart: albedo restarted",
		},
		{
			name:  "a note filling its first row keeps room for its id",
			block: &Block{Kind: BlockUser, Seq: 12, Text: "albedo restarted while this turn was running.", Source: "daemon restart"},
			width: 40,
			want:  "\n⚙ from daemon restart: albedo        #12\n  restarted while this turn was\n  running.",
		},
		{
			name:  "a refused key points to the form",
			block: &Block{Kind: BlockError, Text: "provider fixture answered 401: update the key with: albedo login --name fixture"},
			width: 120,
			want:  "\n✗ provider fixture answered 401: update the key with: albedo login --name fixture\n  in this console: /login changes the provider's key or URL",
		},
		{
			name:  "queued message",
			block: &Block{Kind: BlockQueued, Text: "and then this"},
			width: 60,
			want:  "\n⧗ and then this\n  queued: it joins the next model request",
		},
		{
			name:  "folded thinking",
			block: &Block{Kind: BlockThinking, Text: "one\n\ntwo"},
			width: 40,
			want:  "\n∴ thinking · 2 lines (Ctrl-T shows)",
		},
		{
			name:   "unfolded thinking is markdown",
			block:  &Block{Kind: BlockThinking, Text: "**Planning**\n\none\ntwo"},
			width:  40,
			detail: true,
			want:   "\n∴ thinking\n  Planning\n\n  one two",
		},
		{
			name:  "folded compaction",
			block: &Block{Kind: BlockCompaction, Seq: 5, Text: "we fixed\nmain.go", Figures: "12 items · ~3.4k → ~800 tokens"},
			width: 80,
			want:  "\n≡ compacted · 12 items · ~3.4k → ~800 tokens (Ctrl-T shows the summary)",
		},
		{
			name:   "unfolded compaction",
			block:  &Block{Kind: BlockCompaction, Seq: 5, Text: "we fixed\nmain.go", Figures: "12 items · ~3.4k → ~800 tokens"},
			width:  80,
			detail: true,
			want:   "\n≡ compacted · 12 items · ~3.4k → ~800 tokens\n  we fixed\n  main.go",
		},
		{
			name: "finished cell",
			block: &Block{Kind: BlockTool, Seq: 4, Name: "python", Code: "print(open('a').read())",
				Cell: &wire.CellResult{Status: "ok", Output: "hello\n", Value: "3"}, Trace: "read a · changed b"},
			width: 40,
			want:  "\n⚙ python #4 · ok\n│ print(open('a').read())\n├ output\n│ hello\n│ = 3\n└ read a · changed b",
		},
		{
			name:  "running cell",
			block: &Block{Kind: BlockTool, Seq: 4, Name: "python", Code: "sleep(2)", Live: true},
			width: 40,
			want:  "\n⚙ python #4 · running…\n│ sleep(2)\n└",
		},
		{
			name:  "failed cell",
			block: &Block{Kind: BlockTool, Name: "python", Code: "1/0", Cell: &wire.CellResult{Status: "error", Error: "ZeroDivisionError"}},
			width: 40,
			want:  "\n⚙ python · error\n│ 1/0\n├ error\n│ ZeroDivisionError\n└",
		},
		{
			name:  "long output keeps its end",
			block: &Block{Kind: BlockTool, Name: "python", Code: "x", Cell: &wire.CellResult{Status: "ok", Output: "first\n" + longOutput}},
			width: 50,
			want:  "\n⚙ python · ok\n│ x\n├ output\n│ … 9 lines more (Ctrl-T shows all)\n" + strings.Repeat("│ line\n", 12) + "└",
		},
		{
			name:  "error",
			block: &Block{Kind: BlockError, Text: "provider said no"},
			width: 40,
			want:  "\n✗ provider said no",
		},
		{
			name:  "interrupted turn",
			block: &Block{Kind: BlockTurn, Status: "interrupted"},
			width: 40,
			want:  "\n── turn interrupted ──",
		},
		{
			name:  "a turn that ran says how long",
			block: &Block{Kind: BlockTurn, Status: "failed", Took: 65_000},
			width: 40,
			want:  "\n── turn failed in 1m05s ──",
		},
		{
			name:  "a finished turn says how long it took",
			block: &Block{Kind: BlockTurn, Status: "finished", Took: 3_240},
			width: 40,
			want:  "\n── done in 3.2s ──",
		},
		{
			name: "a finished cell says how long it ran and the images it showed",
			block: &Block{Kind: BlockTool, Seq: 4, Name: "python", Code: "show_image('a.png')",
				Cell: &wire.CellResult{Status: "ok", DurationMS: 1_520, Images: []wire.ImageMeta{{MimeType: "image/png", Width: 640, Height: 480, Bytes: 2048}}}},
			width: 60,
			want:  "\n⚙ python #4 · ok · 1.5s\n│ show_image('a.png')\n├ image shown to the model: 640x480 image/png, 2.0 KiB\n└",
		},
		{
			name:  "retries under way show their notice whole",
			block: &Block{Kind: BlockRetry, Live: true, Retries: 2, Text: "retrying (2/4) in 1.4 s: provider \"x\" answered 503 Service Unavailable: upstream overloaded"},
			width: 40,
			want:  "\n↻ retrying (2/4) in 1.4 s: provider \"x\"\n  answered 503 Service Unavailable:\n  upstream overloaded",
		},
		{
			name:  "retries leave a trace of how they ended",
			block: &Block{Kind: BlockRetry, Retries: 3, Status: "answered", Text: "retrying (3/4) in 1.9 s: provider answered 500"},
			width: 100,
			want:  "\n↻ retried the provider 3 times, then the provider answered; last: provider answered 500",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plainRows(tt.block, tt.width, tt.detail); got != tt.want {
				t.Errorf("rows:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestLayoutCache(t *testing.T) {
	b := &Block{Kind: BlockAssistant, Text: "a b c d e f g h"}
	o := layoutOptions{width: 12, theme: defaultTheme()}
	first := b.rows(o)
	if again := b.rows(o); &again[0] != &first[0] {
		t.Error("an unchanged block was laid out again")
	}
	b.Text += " i j k l m n o p"
	b.changed()
	if got := b.rows(o); len(got) <= len(first) {
		t.Errorf("a grown block kept its old layout: %d rows", len(got))
	}
	o.width = 40
	if got := b.rows(o); len(got) != 2 {
		t.Errorf("at width 40: %d rows, want 2", len(got))
	}
}

func TestThinkingShowsItsBoldAsBold(t *testing.T) {
	th := defaultTheme()
	b := &Block{Kind: BlockThinking, Text: "**Planning the fix**\n\nread *main.go* first"}
	rows := b.rows(layoutOptions{width: 60, detail: true, theme: th})
	wantStyles(t, rows, []styled{
		{"Planning the fix", th.thinking.Bold(true)},
		{"main.go", th.thinking.Italic(true)},
		{"read", th.thinking},
	})
}
