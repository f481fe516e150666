package console

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		input   string
		isCmd   bool
		name    string
		args    []string
		wantErr string
	}{
		{input: "hello", isCmd: false},
		{input: "//etc/hosts is odd", isCmd: false},
		{input: "/model big", isCmd: true, name: "/model", args: []string{"big"}},
		{input: "/model other big", isCmd: true, name: "/model", args: []string{"other", "big"}},
		{input: "/model", isCmd: true, name: "/model"},
		{input: "/model a b c", isCmd: true, wantErr: "usage: /model"},
		{input: "/fork #12", isCmd: true, name: "/fork", args: []string{"#12"}},
		{input: "/fork twelve", isCmd: true, wantErr: "checkpoint number"},
		{input: "/rewind #12", isCmd: true, name: "/rewind", args: []string{"#12"}},
		{input: "/rewind 12 force", isCmd: true, name: "/rewind", args: []string{"12", "force"}},
		{input: "/rewind 12 now", isCmd: true, wantErr: "usage: /rewind"},
		{input: "/rewind", isCmd: true, wantErr: "usage: /rewind"},
		{input: "/diff #7", isCmd: true, name: "/diff", args: []string{"#7"}},
		{input: "/diff", isCmd: true, wantErr: "usage: /diff"},
		{input: "/workspace /tmp/my dir", isCmd: true, name: "/workspace", args: []string{"/tmp/my", "dir"}},
		{input: "/name", isCmd: true, wantErr: "usage: /name"},
		{input: " /quit ", isCmd: true, name: "/quit"},
		{input: "/help me", isCmd: true, wantErr: "takes no arguments"},
		{input: "/mcp", isCmd: true, name: "/mcp"},
		{input: "/mcp approve local", isCmd: true, name: "/mcp", args: []string{"approve", "local"}},
		{input: "/mcp restart local", isCmd: true, name: "/mcp", args: []string{"restart", "local"}},
		{input: "/mcp approve", isCmd: true, wantErr: "usage: /mcp"},
		{input: "/mcp delete local", isCmd: true, wantErr: "usage: /mcp"},
		{input: "/Frobnicate", isCmd: true, wantErr: "unknown command /Frobnicate"},
		{input: "/under_score", isCmd: true, wantErr: "unknown command /under_score"},
		{input: "/deploy", isCmd: true, name: "/skill"},
		{input: "/deploy to staging", isCmd: true, name: "/skill", args: []string{"to", "staging"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			cmd, isCmd, err := parseCommand(tt.input)
			if isCmd != tt.isCmd {
				t.Fatalf("command = %v, want %v", isCmd, tt.isCmd)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if isCmd && (cmd.name != tt.name || !reflect.DeepEqual(cmd.args, tt.args) && len(tt.args)+len(cmd.args) > 0) {
				t.Errorf("parsed %+v, want %s %q", cmd, tt.name, tt.args)
			}
		})
	}
	cmd, _, _ := parseCommand("/workspace ~/code/my project ")
	if cmd.rest != "~/code/my project" {
		t.Errorf("rest = %q", cmd.rest)
	}
	if cmd, _, _ := parseCommand("/fork #7"); cmd.checkpoint() != 7 {
		t.Errorf("checkpoint = %d", cmd.checkpoint())
	}
	if got := unescapeMessage("//etc/hosts"); got != "/etc/hosts" {
		t.Errorf("unescape = %q", got)
	}
}

func TestInputHistory(t *testing.T) {
	var h inputHistory
	if _, ok := h.prev("draft"); ok {
		t.Error("an empty history recalled something")
	}
	h.add("one")
	h.add("two")
	h.add("two") // repeated: kept once
	steps := []struct {
		prev bool
		want string
		ok   bool
	}{
		{true, "two", true},
		{true, "one", true},
		{true, "", false},
		{false, "two", true},
		{false, "typing", true}, // back to the draft
		{false, "", false},
	}
	for i, s := range steps {
		var got string
		var ok bool
		if s.prev {
			got, ok = h.prev("typing")
		} else {
			got, ok = h.next()
		}
		if ok != s.ok || ok && got != s.want {
			t.Errorf("step %d: got %q, %v; want %q, %v", i, got, ok, s.want, s.ok)
		}
	}
}

func TestStatusTextFitsItsWidth(t *testing.T) {
	s := statusLine{Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5", Running: true, Turn: 3 * time.Second,
		Retry: "retrying (2/4) in 1.4 s: provider \"openrouter\" answered 503 Service Unavailable: " + strings.Repeat("upstream overloaded ", 8),
		Note:  "your message is queued for the next model request", Queued: 2, Usage: Usage{Context: 123456, Output: 789, Requests: 3}, Scrolled: true}
	for _, w := range []int{120, 160} {
		text, rows := statusText(s, w)
		plain := stripTags(text)
		for _, row := range strings.Split(plain, "\n") {
			if width(row) > w {
				t.Errorf("at %d columns a row of the status line takes %d: %q", w, width(row), row)
			}
		}
		if n := strings.Count(plain, "\n") + 1; n != rows || rows > 2 {
			t.Errorf("at %d columns the status line has %d rows, says %d: %q", w, n, rows, plain)
		}
		for _, must := range []string{"retrying (2/4) in 1.4 s", "2 queued", "ctx 123k", "scrolled up", "running 3s"} {
			if !strings.Contains(plain, must) {
				t.Errorf("at %d columns the status line lost %q: %q", w, must, plain)
			}
		}
	}
}

// stripTags removes tview colour tags from text.
func stripTags(text string) string {
	var b strings.Builder
	for len(text) > 0 {
		i := strings.IndexByte(text, '[')
		if i < 0 {
			b.WriteString(text)
			break
		}
		b.WriteString(text[:i])
		j := strings.IndexByte(text[i:], ']')
		if j < 0 {
			b.WriteString(text[i:])
			break
		}
		if tag := text[i+1 : i+j]; strings.HasSuffix(tag, "[") || tag == "" {
			b.WriteString("[")
		}
		text = text[i+j+1:]
	}
	return b.String()
}

func TestStatusText(t *testing.T) {
	tests := []struct {
		name string
		s    statusLine
		want []string
	}{
		{"idle", statusLine{Provider: "p", Model: "m"}, []string{"p · m", "○ idle"}},
		{"running with usage", statusLine{Model: "m", Running: true, Usage: Usage{Context: 12345, Input: 20000, Output: 67, Requests: 2}}, []string{"⠋ running 0s", "ctx 12k · 20.0k in · 67 out"}},
		{"usage with a window", statusLine{Model: "m", Usage: Usage{Context: 84321, Window: 136000, Percent: 62, Input: 84321, Output: 5, Requests: 1}}, []string{"ctx 62% · 84k/136k · 84.3k in · 5 out"}},
		{"a turn of 75 s in a cell of 4 s", statusLine{Running: true, Turn: 75*time.Second + 450*time.Millisecond, InCell: true, Cell: 4 * time.Second}, []string{"⠼ running 1m15s · cell 4s"}},
		{"a turn of hours", statusLine{Running: true, Turn: 2*time.Hour + 3*time.Minute}, []string{"running 2h03m"}},
		{"notes", statusLine{Conn: "reconnecting…", ConnFailed: true, Note: "queued", Queued: 2}, []string{"[red::b]reconnecting…", "queued", "2 queued"}},
		{"escaped", statusLine{Model: "[red]x"}, []string{"[red[]x"}},
		{"sandboxed", statusLine{Sandbox: "sandbox"}, []string{"[::d]sandbox"}},
		{"sandbox short of its policy", statusLine{Sandbox: "sandbox: read-only, 1 not enforced"}, []string{"[yellow]sandbox: read-only, 1 not enforced"}},
		{"sandbox off", statusLine{Sandbox: "sandbox off"}, []string{"[yellow]sandbox off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := statusText(tt.s, 0)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}

func TestCompleteCommand(t *testing.T) {
	tests := []struct {
		start  string
		names  string
		common string
	}{
		{"/wo", "/workspace", "/workspace"},
		{"/f", "/fork", "/fork"},
		{"/", "/model /login /compact /fork /diff /rewind /new /workspace /name /sessions /vents /sandbox /mcp /help /quit", "/"},
		{"/c", "/compact", "/compact"},
		{"/zz", "", "/zz"},
	}
	for _, tt := range tests {
		names, common := completeCommand(tt.start)
		if strings.Join(names, " ") != tt.names || common != tt.common {
			t.Errorf("completeCommand(%q) = %q, %q; want %q, %q", tt.start, names, common, tt.names, tt.common)
		}
	}
}

func TestMCPDetail(t *testing.T) {
	tests := []struct {
		name string
		list wire.MCPList
		want []string
	}{
		{"none", wire.MCPList{}, []string{"no MCP servers: configure them in extensions.json"}},
		{"a running server, a waiting one and a problem", wire.MCPList{
			Servers: []wire.MCPServer{
				{Name: "gh", State: wire.MCPRunning, Source: "extensions.json", Transport: "stdio", Runs: "gh-mcp", Exposure: "functions",
					Tools: []wire.MCPTool{{Tool: "search"}, {Tool: "fetch"}}, LastError: "timed out\nmore"},
				{Name: "local", State: wire.MCPAwaitingApproval, Source: ".mcp.json", Transport: "stdio", Runs: "node s.js"},
			},
			Problems: []string{"mcp.servers.x: bad"},
		}, []string{
			"gh: running (extensions.json, stdio) gh-mcp\n  2 tools (functions): search, fetch\n  last error: timed out\n",
			"local: awaiting approval (.mcp.json, stdio) node s.js\n  it starts only once approved: /mcp approve local",
			"problem: mcp.servers.x: bad",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mcpDetail(tt.list)
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("/mcp shows\n%s\nwant it to hold\n%s", got, want)
				}
			}
		})
	}
}

func TestDiffNoticeListsFilesWithTheirCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		diff wire.Diff
		want string
	}{
		{"nothing", wire.Diff{}, "no file changed after #4"},
		{"a text and a binary file", wire.Diff{Files: []wire.FileDiff{
			{Path: "a.txt", Status: "modified", Added: 2, Deleted: 1},
			{Path: "b.bin", Status: "created", Binary: true},
		}}, "changed after #4:\na.txt +2 -1 (modified)\nb.bin binary (created)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := diffNotice(4, tc.diff); got != tc.want {
				t.Errorf("diffNotice = %q; want %q", got, tc.want)
			}
		})
	}
}
