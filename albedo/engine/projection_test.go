package engine_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/projection"
)

const (
	resp = albedo.ProtocolResponses
	chat = albedo.ProtocolChatCompletions
)

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("bad JSON %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("bad JSON %s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestProject(t *testing.T) {
	pngBytes := []byte("\x89PNG\r\n\x1a\n")
	img := &albedo.Image{MimeType: "image/png", Width: 1, Height: 1, Bytes: len(pngBytes), Data: pngBytes}
	const dataURL = "data:image/png;base64,iVBORw0KGgo="
	respReasoning := albedo.Item{Kind: albedo.KindReasoning, Text: "think", Protocol: resp,
		Raw: json.RawMessage(`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"opaque"}`)}
	respText := albedo.Item{Kind: albedo.KindAssistant, Text: "hello", Protocol: resp,
		Raw: json.RawMessage(`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hello","annotations":[]}]}`)}
	respCall := albedo.Item{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: `{"code":"1"}`, Protocol: resp,
		Raw: json.RawMessage(`{"type":"function_call","id":"fc_1","call_id":"c1","name":"python","arguments":"{\"code\":\"1\"}","status":"completed"}`)}
	chatReasoning := albedo.Item{Kind: albedo.KindReasoning, Text: "ponder", Protocol: chat, Raw: json.RawMessage(`{"reasoning_content":"ponder"}`)}
	chatText := albedo.Item{Kind: albedo.KindAssistant, Text: "hey", Protocol: chat, Raw: json.RawMessage(`{"role":"assistant","content":"hey"}`)}
	chatCall := albedo.Item{Kind: albedo.KindToolCall, CallID: "k1", ToolName: "python", Arguments: `{"code":"2"}`, Protocol: chat,
		Raw: json.RawMessage(`{"id":"k1","type":"function","function":{"name":"python","arguments":"{\"code\":\"2\"}"},"index":0}`)}
	out := func(id, text string) albedo.Item {
		return albedo.Item{Kind: albedo.KindToolOutput, CallID: id, ToolName: "python", Text: text}
	}
	user := func(text string) albedo.Item { return albedo.Item{Kind: albedo.KindUser, Text: text} }
	noise := []albedo.Item{{Kind: albedo.KindError, Text: "boom"}, {Kind: albedo.KindTurn, Text: albedo.TurnFailed}}

	tests := []struct {
		name     string
		items    []albedo.Item
		protocol albedo.Protocol
		want     string
	}{
		{
			name:     "responses replays its own items verbatim",
			items:    append([]albedo.Item{user("hi"), respReasoning, respText, respCall, out("c1", "one")}, noise...),
			protocol: resp,
			want: `[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},` +
				string(respReasoning.Raw) + `,` + string(respText.Raw) + `,` + string(respCall.Raw) + `,` +
				`{"type":"function_call_output","call_id":"c1","output":"one"}]`,
		},
		{
			name:     "responses projects chat items and drops their reasoning",
			items:    []albedo.Item{user("hi"), chatReasoning, chatText, chatCall, out("k1", "two")},
			protocol: resp,
			want: `[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},` +
				`{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hey","annotations":[],"logprobs":[]}]},` +
				`{"type":"function_call","call_id":"k1","name":"python","arguments":"{\"code\":\"2\"}"},` +
				`{"type":"function_call_output","call_id":"k1","output":"two"}]`,
		},
		{
			name: "responses drops reasoning it cannot resolve",
			items: []albedo.Item{user("hi"),
				{Kind: albedo.KindReasoning, Text: "bare", Protocol: resp},
				{Kind: albedo.KindReasoning, Text: "stored", Protocol: resp, Raw: json.RawMessage(`{"type":"reasoning","id":"rs_2","summary":[]}`)},
				{Kind: albedo.KindReasoning, Text: "emptied", Protocol: resp, Raw: json.RawMessage(`{"type":"reasoning","id":"rs_3","summary":[],"encrypted_content":""}`)},
				{Kind: albedo.KindAssistant, Text: "plain"}},
			protocol: resp,
			want: `[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},` +
				`{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"plain","annotations":[],"logprobs":[]}]}]`,
		},
		{
			name: "responses writes an answer without Raw from its text, incomplete when cut",
			items: []albedo.Item{user("hi"), {Kind: albedo.KindAssistant, Text: "whole", Protocol: resp},
				{Kind: albedo.KindAssistant, Text: "cut", Protocol: resp, Flags: albedo.FlagPartial}},
			protocol: resp,
			want: `[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},` +
				`{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"whole","annotations":[],"logprobs":[]}]},` +
				`{"type":"message","role":"assistant","status":"incomplete","content":[{"type":"output_text","text":"cut","annotations":[],"logprobs":[]}]}]`,
		},
		{
			name:     "chat merges text and calls of responses items into one message",
			items:    append([]albedo.Item{user("hi"), respReasoning, respText, respCall, out("c1", "one")}, noise...),
			protocol: chat,
			want: `[{"role":"user","content":"hi"},` +
				`{"role":"assistant","content":"hello","tool_calls":[{"id":"c1","type":"function","function":{"name":"python","arguments":"{\"code\":\"1\"}"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":"one"}]`,
		},
		{
			name:     "chat replays its own calls and never sends reasoning",
			items:    []albedo.Item{user("hi"), chatReasoning, chatText, chatCall, out("k1", "two"), {Kind: albedo.KindAssistant, Text: "done", Protocol: chat}},
			protocol: chat,
			want: `[{"role":"user","content":"hi"},` +
				`{"role":"assistant","content":"hey","tool_calls":[` + string(chatCall.Raw) + `]},` +
				`{"role":"tool","tool_call_id":"k1","content":"two"},{"role":"assistant","content":"done"}]`,
		},
		{
			name:     "chat calls without text have null content; sibling calls share a message",
			items:    []albedo.Item{user("go"), respCall, chatCall, out("k1", "second"), out("c1", "first")},
			protocol: chat,
			want: `[{"role":"user","content":"go"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"python","arguments":"{\"code\":\"1\"}"}},` + string(chatCall.Raw) + `]},` +
				`{"role":"tool","tool_call_id":"k1","content":"second"},{"role":"tool","tool_call_id":"c1","content":"first"}]`,
		},
		{
			name:     "chat keeps consecutive texts apart",
			items:    []albedo.Item{user("go"), chatText, respText},
			protocol: chat,
			want:     `[{"role":"user","content":"go"},{"role":"assistant","content":"hey"},{"role":"assistant","content":"hello"}]`,
		},
		{
			name:     "chat image",
			items:    []albedo.Item{{Kind: albedo.KindUser, Text: "look", Image: img}},
			protocol: chat,
			want:     `[{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"` + dataURL + `"}}]}]`,
		},
		{
			name:     "responses image",
			items:    []albedo.Item{{Kind: albedo.KindUser, Text: "look", Image: img}},
			protocol: resp,
			want:     `[{"type":"message","role":"user","content":[{"type":"input_text","text":"look"},{"type":"input_image","image_url":"` + dataURL + `","detail":"auto"}]}]`,
		},
		{
			name: "system notes in chat",
			items: []albedo.Item{
				{Kind: albedo.KindUser, Source: "daemon restart", Text: "albedo restarted", Notes: []string{"n1", "n2"}},
				{Kind: albedo.KindUser, Text: "mine", Notes: []string{"kernel gone"}},
			},
			protocol: chat,
			want: `[{"role":"user","content":"<system-note origin=\"daemon restart\">albedo restarted</system-note>\n<system-note>n1</system-note>\n<system-note>n2</system-note>"},` +
				`{"role":"user","content":"mine\n<system-note>kernel gone</system-note>"}]`,
		},
		{
			name:     "system notes in responses",
			items:    []albedo.Item{{Kind: albedo.KindUser, Source: "paperclips", Text: "reply"}},
			protocol: resp,
			want:     `[{"type":"message","role":"user","content":[{"type":"input_text","text":"<system-note origin=\"paperclips\">reply</system-note>"}]}]`,
		},
		{
			name:     "responses answers a call without output and drops an orphan output",
			items:    []albedo.Item{user("a"), respCall, out("ghost", "lost"), user("b")},
			protocol: resp,
			want: `[{"type":"message","role":"user","content":[{"type":"input_text","text":"a"}]},` + string(respCall.Raw) + `,` +
				`{"type":"function_call_output","call_id":"c1","output":"` + projection.UnpairedOutput + `"},` +
				`{"type":"message","role":"user","content":[{"type":"input_text","text":"b"}]}]`,
		},
		{
			name:     "chat answers a call without output at the end",
			items:    []albedo.Item{user("a"), chatCall},
			protocol: chat,
			want: `[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + string(chatCall.Raw) + `]},` +
				`{"role":"tool","tool_call_id":"k1","content":"` + projection.UnpairedOutput + `"}]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(projection.Project(tc.items, tc.protocol))
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, got, []byte(tc.want)) {
				t.Fatalf("Project =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestProjectReplaysRawBytes(t *testing.T) {
	raw := json.RawMessage(`{"type":"function_call","call_id":"c1","name":"python","arguments":"{}","x-vendor":{"keep":[1,2]}}`)
	items := []albedo.Item{
		{Kind: albedo.KindUser, Text: "u"},
		{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: "{}", Protocol: resp, Raw: raw},
	}
	got := projection.Project(items, resp)
	if len(got) != 3 || string(got[1]) != string(raw) {
		t.Fatalf("Project = %s", got)
	}
}

// TestProjectPutsBackATextLeftOutOfRaw: a Responses item flagged
// FlagRawWithoutText had its text (a call's, its arguments) left out of
// its Raw by its adapter, as an empty string; the projection puts it back
// there. A Raw that holds its text is replayed as it is.
func TestProjectPutsBackATextLeftOutOfRaw(t *testing.T) {
	long := strings.Repeat("a <long> text, é\n", 4096)
	encoded, err := json.Marshal(long)
	if err != nil {
		t.Fatal(err)
	}
	message := func(text string) string {
		return `{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":` + text + `,"annotations":[]}]}`
	}
	reasoning := func(text string) string {
		return `{"type":"reasoning","encrypted_content":"e","summary":[{"type":"summary_text","text":` + text + `}]}`
	}
	call := func(arguments string) string {
		return `{"type":"function_call","call_id":"c1","name":"python","arguments":` + arguments + `}`
	}
	tests := []struct {
		name string
		item albedo.Item
		want string
	}{
		{"an answer", albedo.Item{Kind: albedo.KindAssistant, Text: long, Raw: json.RawMessage(message(`""`)), Flags: albedo.FlagRawWithoutText}, message(string(encoded))},
		{"reasoning", albedo.Item{Kind: albedo.KindReasoning, Text: long, Raw: json.RawMessage(reasoning(`""`)), Flags: albedo.FlagRawWithoutText}, reasoning(string(encoded))},
		{"a call", albedo.Item{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: long, Raw: json.RawMessage(call(`""`)), Flags: albedo.FlagRawWithoutText}, call(string(encoded))},
		{"an answer whose Raw holds it", albedo.Item{Kind: albedo.KindAssistant, Text: long, Raw: json.RawMessage(message(string(encoded)))}, message(string(encoded))},
		{"a short answer", albedo.Item{Kind: albedo.KindAssistant, Text: "hi", Raw: json.RawMessage(message(`"hi"`))}, message(`"hi"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.item.Protocol = resp
			got := projection.Project([]albedo.Item{{Kind: albedo.KindUser, Text: "u"}, tt.item}, resp)
			if len(got) < 2 || !sameJSON(t, got[1], []byte(tt.want)) {
				t.Fatalf("Project = %.300s, want %.300s", got, tt.want)
			}
			if len(tt.item.Raw) > len(long) && string(got[1]) != string(tt.item.Raw) {
				t.Errorf("a Raw that holds its text is not replayed byte for byte")
			}
		})
	}
}

// A Chat Completions call carries no Raw (its adapter keeps none): the
// projection writes it from its fields byte for byte as the Raw the
// adapter used to make (encoding/json's Marshal of id, type and function),
// so a request is what it was, escapes included.
func TestProjectChatCallWithoutRawIsItsFormerRaw(t *testing.T) {
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type nativeCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	tests := []struct{ name, id, tool, arguments string }{
		{"plain", "call-1", "python", `{"code":"print(1)"}`},
		{"html characters", "c<&>", "py&thon", `{"code":"if a < b and c > d: print('&')"}`},
		{"short escapes and controls", "c\b", "t\f", "{\"code\":\"\b\f\x00\x1f\x7f\t\n\r\"}"},
		{"unicode, separators, bad UTF-8", "ü", "✓", "{\"code\":\"é\u2028\u2029 \xff \xe2\x82\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(nativeCall{ID: tt.id, Type: "function", Function: function{Name: tt.tool, Arguments: tt.arguments}})
			if err != nil {
				t.Fatal(err)
			}
			call := albedo.Item{Kind: albedo.KindToolCall, CallID: tt.id, ToolName: tt.tool, Arguments: tt.arguments, Protocol: chat}
			text := albedo.Item{Kind: albedo.KindAssistant, Text: "running <it>", Protocol: chat}
			second := call
			second.CallID += "2"
			withRaw := func(items ...albedo.Item) []albedo.Item {
				out := append([]albedo.Item(nil), items...)
				for i := range out {
					if out[i].Kind == albedo.KindToolCall {
						r, _ := json.Marshal(nativeCall{ID: out[i].CallID, Type: "function", Function: function{Name: out[i].ToolName, Arguments: out[i].Arguments}})
						out[i].Raw = r
					}
				}
				return out
			}
			for _, items := range [][]albedo.Item{{call}, {text, call, second}} {
				got := projection.Project(items, chat)
				want := projection.Project(withRaw(items...), chat)
				if len(got) != len(want) {
					t.Fatalf("Project = %s, want %s", got, want)
				}
				for i := range got {
					if string(got[i]) != string(want[i]) {
						t.Errorf("message %d = %s, want %s", i, got[i], want[i])
					}
				}
			}
			if got := string(projection.Project([]albedo.Item{call}, chat)[0]); !strings.Contains(got, `"tool_calls":[`+string(raw)+`]`) {
				t.Errorf("message %s does not hold the call as %s", got, raw)
			}
		})
	}
}

// A call from a Responses provider, projected for Chat Completions, is
// written from its fields as every message of that projection is, HTML
// characters as they are.
func TestProjectChatCallOfAnotherProtocol(t *testing.T) {
	call := albedo.Item{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: `{"code":"a < b"}`, Protocol: resp,
		Raw: json.RawMessage(`{"type":"function_call","call_id":"c1","name":"python","arguments":"{\"code\":\"a < b\"}"}`)}
	got := string(projection.Project([]albedo.Item{call}, chat)[0])
	want := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"python","arguments":"{\"code\":\"a < b\"}"}}]}`
	if got != want {
		t.Errorf("Project = %s, want %s", got, want)
	}
}

func TestProjectEmpty(t *testing.T) {
	for _, p := range []albedo.Protocol{resp, chat} {
		if got := projection.Project(nil, p); len(got) != 0 {
			t.Errorf("%s: Project(nil) = %s", p, got)
		}
	}
}

func TestProjectForSendsReasoningContentOfTheCurrentTurnOnly(t *testing.T) {
	call := func(id string) albedo.Item {
		return albedo.Item{Kind: albedo.KindToolCall, CallID: id, ToolName: "python", Arguments: `{}`}
	}
	out := func(id string) albedo.Item { return albedo.Item{Kind: albedo.KindToolOutput, CallID: id, Text: "ok"} }
	items := []albedo.Item{
		{Kind: albedo.KindUser, Text: "first"},
		{Kind: albedo.KindReasoning, Text: "old thought"},
		{Kind: albedo.KindAssistant, Text: "done"},
		{Kind: albedo.KindUser, Text: "second"},
		{Kind: albedo.KindReasoning, Text: "plan"},
		call("c1"), out("c1"),
		{Kind: albedo.KindReasoning, Text: "check"},
		{Kind: albedo.KindAssistant, Text: "answer"},
	}
	tests := []struct {
		name string
		ep   albedo.Endpoint
		want []string
	}{
		{"flag off", albedo.Endpoint{Protocol: chat}, []string{
			`{"role":"user","content":"first"}`,
			`{"role":"assistant","content":"done"}`,
			`{"role":"user","content":"second"}`,
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"python","arguments":"{}"}}]}`,
			`{"role":"tool","tool_call_id":"c1","content":"ok"}`,
			`{"role":"assistant","content":"answer"}`,
		}},
		{"flag on", albedo.Endpoint{Protocol: chat, ReasoningContent: true}, []string{
			`{"role":"user","content":"first"}`,
			`{"role":"assistant","content":"done"}`,
			`{"role":"user","content":"second"}`,
			`{"role":"assistant","content":null,"reasoning_content":"plan","tool_calls":[{"id":"c1","type":"function","function":{"name":"python","arguments":"{}"}}]}`,
			`{"role":"tool","tool_call_id":"c1","content":"ok"}`,
			`{"role":"assistant","content":"answer","reasoning_content":"check"}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := projection.ProjectFor(items, tt.ep)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d messages, want %d: %s", len(got), len(tt.want), got)
			}
			for i := range got {
				if !sameJSON(t, got[i], []byte(tt.want[i])) {
					t.Errorf("message %d = %s, want %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}
