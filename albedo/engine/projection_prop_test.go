package engine_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/projection"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"pgregory.net/rapid"
)

// transcriptGen draws transcripts as albedo might store them, and worse:
// users, reasoning, texts and calls from either protocol (with or without
// native JSON), outputs for calls in any order, calls that never get an
// output, outputs of unknown calls, and the error and turn items people
// see. An output follows its call before any other conversational item
// unless late is set; then it may come at any later point.
type transcriptGen struct {
	t    *rapid.T
	late bool
	// items is the transcript so far.
	items []albedo.Item
	// open are the calls that may still get an output.
	open  []albedo.Item
	calls int
	users int
}

// closeGroup ends the current group of calls: unless outputs may come
// late, calls still open never get one.
func (g *transcriptGen) closeGroup() {
	if !g.late {
		g.open = nil
	}
}

func (g *transcriptGen) protocol() albedo.Protocol {
	return rapid.SampledFrom([]albedo.Protocol{resp, chat, ""}).Draw(g.t, "protocol")
}

func (g *transcriptGen) native(p albedo.Protocol) bool {
	return p != "" && rapid.Bool().Draw(g.t, "native")
}

func (g *transcriptGen) user() {
	g.closeGroup()
	g.users++
	it := albedo.Item{Kind: albedo.KindUser, Text: fmt.Sprintf("user message %d", g.users)}
	if rapid.IntRange(0, 3).Draw(g.t, "sourced") == 0 {
		it.Source = rapid.SampledFrom([]string{albedo.RestartSource, albedo.ReplySource}).Draw(g.t, "source")
	}
	for range rapid.IntRange(0, 2).Draw(g.t, "notes") {
		it.Notes = append(it.Notes, albedo.KernelResetNote)
	}
	if rapid.IntRange(0, 5).Draw(g.t, "image") == 0 {
		it.Image = &albedo.Image{MimeType: "image/gif", Width: 1, Height: 1, Bytes: 6, Data: []byte("GIF89a")}
	}
	g.add(it)
}

func (g *transcriptGen) reasoning() {
	g.closeGroup()
	p := g.protocol()
	it := albedo.Item{Kind: albedo.KindReasoning, Text: "thinking", Protocol: p}
	if g.native(p) {
		it.Raw = fakes.NativeReasoning(p, "rs", it.Text)
		if p == resp && rapid.Bool().Draw(g.t, "stored reasoning") {
			// Reasoning a provider kept server-side: no encrypted content.
			it.Raw = json.RawMessage(`{"type":"reasoning","id":"rs","summary":[]}`)
		}
	}
	g.add(it)
}

func (g *transcriptGen) text() {
	g.closeGroup()
	p := g.protocol()
	it := albedo.Item{Kind: albedo.KindAssistant, Text: "some text", Protocol: p}
	if g.native(p) {
		it.Raw = fakes.NativeMessage(p, "msg", it.Text)
	}
	g.add(it)
}

func (g *transcriptGen) call() {
	g.calls++
	p := g.protocol()
	it := albedo.Item{Kind: albedo.KindToolCall, CallID: fmt.Sprintf("call-%d", g.calls), ToolName: "python", Arguments: `{"code":"pass"}`, Protocol: p}
	if g.native(p) {
		it.Raw = fakes.NativeCall(p, it.CallID, it.ToolName, it.Arguments)
	}
	g.add(it)
	g.open = append(g.open, it)
}

func (g *transcriptGen) output() {
	if len(g.open) == 0 {
		return
	}
	i := rapid.IntRange(0, len(g.open)-1).Draw(g.t, "answered")
	c := g.open[i]
	g.open = slices.Delete(g.open, i, i+1)
	g.add(albedo.Item{Kind: albedo.KindToolOutput, CallID: c.CallID, ToolName: c.ToolName, Text: "output of " + c.CallID})
}

// reply adds what one model reply and its cells leave: optional reasoning
// and text, some calls, then outputs for some of them in any order.
func (g *transcriptGen) reply() {
	if rapid.Bool().Draw(g.t, "reply reasoning") {
		g.reasoning()
	}
	if rapid.Bool().Draw(g.t, "reply text") {
		g.text()
	}
	n := rapid.IntRange(1, 3).Draw(g.t, "reply calls")
	for range n {
		g.call()
	}
	for range rapid.IntRange(0, n).Draw(g.t, "reply outputs") {
		g.output()
	}
}

// add appends an item, numbering it.
func (g *transcriptGen) add(it albedo.Item) {
	it.Seq = int64(len(g.items) + 1)
	g.items = append(g.items, it)
}

// checkTranscripts runs check on random transcripts.
func checkTranscripts(t *testing.T, late bool, check func(fataler, []albedo.Item)) {
	rapid.Check(t, func(rt *rapid.T) {
		g := &transcriptGen{t: rt, late: late}
		step := func(f func()) func(*rapid.T) {
			return func(rt *rapid.T) {
				g.t = rt
				f()
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"user":      step(g.user),
			"reasoning": step(g.reasoning),
			"text":      step(g.text),
			"reply":     step(g.reply),
			"call":      step(g.call),
			"output":    step(g.output),
			"orphan": step(func() {
				g.add(albedo.Item{Kind: albedo.KindToolOutput, CallID: fmt.Sprintf("orphan-%d", len(g.items)), Text: "orphan"})
			}),
			"noise": step(func() {
				k := rapid.SampledFrom([]albedo.ItemKind{albedo.KindError, albedo.KindTurn}).Draw(g.t, "noise")
				g.add(albedo.Item{Kind: k, Text: "noise"})
			}),
		})
		check(rt, g.items)
	})
}

// wantUserTexts renders the user items as the model must see them.
func wantUserTexts(items []albedo.Item) []string {
	var out []string
	for _, it := range items {
		if it.Kind != albedo.KindUser {
			continue
		}
		s := it.Text
		if it.Source != "" {
			s = `<system-note origin="` + it.Source + `">` + it.Text + `</system-note>`
		}
		for _, n := range it.Notes {
			s += "\n<system-note>" + n + "</system-note>"
		}
		out = append(out, s)
	}
	return out
}

func TestProjectChatPairsEveryCall(t *testing.T) {
	checkTranscripts(t, false, checkChat)
}

func TestProjectResponsesPairsEveryCall(t *testing.T) {
	checkTranscripts(t, false, checkResponses)
}

// Outputs recorded after a later message (a transcript albedo itself does
// not write, but one a store may hold) must still reach the provider right
// after their call: Chat Completions refuses anything else.
func TestProjectChatPairsLateOutputs(t *testing.T) {
	checkTranscripts(t, true, checkChat)
}

func TestProjectResponsesPairsLateOutputs(t *testing.T) {
	checkTranscripts(t, true, checkResponses)
}

// checkChat fails unless every tool_call id of an assistant message is
// answered by a tool message before the next other message, every tool
// message answers such a call, and the user texts come in order.
func checkChat(rt fataler, items []albedo.Item) {
	rt.Helper()
	msgs := decodeInput(rt, projection.Project(items, chat))
	pending := map[string]bool{} // calls of the last assistant message not yet answered
	answered := map[string]bool{}
	for i, m := range msgs {
		if m.Type != "" {
			rt.Fatalf("message %d is a Responses item: %+v", i, m)
		}
		if m.Role == "tool" {
			if !pending[m.ToolCallID] {
				rt.Fatalf("tool message %d answers %q, which is not an open call of the preceding assistant message", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			answered[m.ToolCallID] = true
			continue
		}
		if len(pending) > 0 {
			rt.Fatalf("message %d (%s) comes before calls %v are answered", i, m.Role, keys(pending))
		}
		if m.Role == "assistant" {
			for _, raw := range m.ToolCalls {
				var c struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(raw, &c); err != nil || c.ID == "" {
					rt.Fatalf("tool call %s has no id", raw)
				}
				if answered[c.ID] || pending[c.ID] {
					rt.Fatalf("call %q appears twice", c.ID)
				}
				pending[c.ID] = true
			}
		}
	}
	if len(pending) > 0 {
		rt.Fatalf("calls %v are never answered", keys(pending))
	}
	if got, want := userTexts(rt, projection.Project(items, chat)), wantUserTexts(items); !slices.Equal(got, want) {
		rt.Fatalf("user texts = %q, want %q", got, want)
	}
}

// checkResponses fails unless every function_call has exactly one
// function_call_output after it, every output has its call before it, only
// native reasoning with encrypted content is replayed, and the user texts
// come in order.
func checkResponses(rt fataler, items []albedo.Item) {
	rt.Helper()
	input := projection.Project(items, resp)
	msgs := decodeInput(rt, input)
	called := map[string]bool{}
	outputs := map[string]int{}
	reasoning := 0
	for i, m := range msgs {
		switch m.Type {
		case "function_call":
			if called[m.CallID] {
				rt.Fatalf("call %q appears twice", m.CallID)
			}
			called[m.CallID] = true
		case "function_call_output":
			if !called[m.CallID] {
				rt.Fatalf("output %d answers %q, which has no call before it", i, m.CallID)
			}
			outputs[m.CallID]++
		case "reasoning":
			reasoning++
		case "message":
		default:
			rt.Fatalf("input %d has unexpected type %q", i, m.Type)
		}
	}
	for id := range called {
		if outputs[id] != 1 {
			rt.Fatalf("call %q has %d outputs after it, want 1", id, outputs[id])
		}
	}
	replayable := 0
	for _, it := range items {
		var raw struct {
			Encrypted string `json:"encrypted_content"`
		}
		if it.Kind == albedo.KindReasoning && it.Protocol == resp && json.Unmarshal(it.Raw, &raw) == nil && raw.Encrypted != "" {
			replayable++
		}
	}
	if reasoning != replayable {
		rt.Fatalf("%d reasoning items sent, want the %d native ones with encrypted content", reasoning, replayable)
	}
	if got, want := userTexts(rt, input), wantUserTexts(items); !slices.Equal(got, want) {
		rt.Fatalf("user texts = %q, want %q", got, want)
	}
}

func keys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// TestProjectPairsOddTranscripts pins the smallest transcripts the
// properties above found, in both protocols.
func TestProjectPairsOddTranscripts(t *testing.T) {
	user := func(text string) albedo.Item { return albedo.Item{Kind: albedo.KindUser, Text: text} }
	call := func(id string) albedo.Item {
		return albedo.Item{Kind: albedo.KindToolCall, CallID: id, ToolName: "python", Arguments: "{}", Protocol: resp}
	}
	out := func(id string) albedo.Item {
		return albedo.Item{Kind: albedo.KindToolOutput, CallID: id, ToolName: "python", Text: "out " + id}
	}
	tests := []struct {
		name  string
		items []albedo.Item
	}{
		{"missing output, then the next reply's call", []albedo.Item{user("a"), call("c1"), call("c2"), out("c1"), call("c3"), out("c3")}},
		{"missing output at the end", []albedo.Item{user("a"), call("c1"), call("c2"), out("c2")}},
		{"output after a later user message", []albedo.Item{user("a"), call("c1"), user("b"), out("c1")}},
		{"output after a later text", []albedo.Item{user("a"), call("c1"), {Kind: albedo.KindAssistant, Text: "t"}, out("c1")}},
		{"orphan output between calls and outputs", []albedo.Item{user("a"), call("c1"), out("zz"), out("c1")}},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/chat", func(t *testing.T) { checkChat(t, tc.items) })
		t.Run(tc.name+"/responses", func(t *testing.T) { checkResponses(t, tc.items) })
	}
}
