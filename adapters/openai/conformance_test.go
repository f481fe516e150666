package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/projection"
)

// wantReply is what the user should end up with from one recorded
// response.
type wantReply struct {
	// outcome is "answered" (text, no tool call), "tools" (tool calls) or
	// "failed".
	outcome string
	// answer is the final answer text; "start … end" matches a long text
	// by its two ends.
	answer string
	// commentary is text the model wrote on its way to the answer.
	commentary string
	reasoning  string
	calls      []wantCall
	// usage is "input/cached/output/reasoning" tokens, "-" for a count the
	// provider did not report.
	usage     string
	refusal   bool
	truncated bool
	// notes counts the output items albedo does not act on but shows.
	notes int
	// failure is part of the error message: the provider's own words.
	failure string
	// partial is the text that streamed before the failure, kept.
	partial string
}

type wantCall struct{ id, name, arguments string }

// wireCase is one recording, or one framing of it, and what each of its
// responses should give.
type wireCase struct {
	file     string
	protocol albedo.Protocol
	// framing, when set, re-frames the recorded bodies.
	framing     func([]byte) []byte
	framingName string
	// endpoint adjusts the provider settings the recording needs.
	endpoint func(*albedo.Endpoint)
	replies  []wantReply
}

func (c wireCase) name() string {
	if c.framingName != "" {
		return c.file + "/" + c.framingName
	}
	return c.file
}

var (
	chatCC = albedo.ProtocolChatCompletions
	respRS = albedo.ProtocolResponses
)

const (
	openaiChatText = "I'm unable to provide real-time weather updat … a reliable weather website or a weather app."
	openaiRespText = "Why did the scarecrow win an award?\n\nBecause he was outstanding in his field!"
	llamaContext   = "the request exceeds the available context size, try increasing it"
	vllmTooLong    = "The decoder prompt (length 9000) is longer than the maximum model length of 8192."
)

// wireCases is the conformance table: every recording in
// ../shared/wire/recordings has a row (a new recording is a new row), and
// the README's framing variants have theirs.
var wireCases = []wireCase{
	{file: "alibaba-qwen-tool-call.jsonl", protocol: chatCC, replies: []wantReply{{
		outcome: "tools", calls: []wantCall{{"call_eee11723464a4b9eb8cee71d", "weather", `{"location": "San Francisco"}`}},
		usage: "295/0/22/-",
	}}},
	{file: "azure-chat-model-router.jsonl", protocol: chatCC, replies: []wantReply{{
		outcome: "answered", answer: "Capital of Denmark.", usage: "15/0/78/64",
	}}},
	{file: "copilot-claude-tool-index1.sse", protocol: chatCC, replies: []wantReply{{
		outcome: "tools", answer: "Now listing your Coder workspaces:",
		calls: []wantCall{{"toolu_vrtx_01DbFqUgk6aAtJ4nDBqzFWDF", "bmcp_coder_coder_list_workspaces", ""}},
		usage: "25939/25429/58/-",
	}}},
	{file: "copilot-responses-id-rotation.jsonl", protocol: respRS, replies: []wantReply{{
		outcome: "answered", answer: "There are **3** letter **“r”**s in **“strawbe … u can see **r** at positions **3, 8, and 9**.",
		reasoning: "**Counting character occurrences**", usage: "19/0/105/44",
	}}},
	{file: "deepseek-reasoner-text.jsonl", protocol: chatCC, endpoint: reasoningContent, replies: []wantReply{{
		outcome: "answered", answer: `The word "strawberry" contains three "r"s.`,
		reasoning: `We need to count the number of the letter "r" … 8, and 9. So yes, 3.` + "\n\nThus, the answer is 3.",
		usage:     "18/0/219/205",
	}}},
	{file: "deepseek-reasoner-tool-call.jsonl", protocol: chatCC, endpoint: reasoningContent, replies: []wantReply{{
		outcome: "tools", reasoning: `The user is asking for the weather in San Fra … he location parameter set to "San Francisco".`,
		calls: []wantCall{{"call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "weather", `{"location": "San Francisco"}`}},
		usage: "339/320/83/39",
	}}},
	{file: "groq-reasoning.jsonl", protocol: chatCC, replies: []wantReply{{
		outcome: "answered", answer: `The word **"strawberry"** is spelled as **S-T … "strawberry".` + "\n\n**Final Answer**: $\\boxed{3}$",
		reasoning: `Okay, let me try to figure out how many times … the number of R's in "strawberry" is three.` + "\n",
		usage:     "17/-/1107/963",
	}}},
	{file: "groq-tool-call.jsonl", protocol: chatCC, replies: []wantReply{{
		outcome: "tools", calls: []wantCall{{"tk85n1k4m", "weather", "{}"}}, usage: "210/-/15/-",
	}}},
	{file: "llamacpp-error-field.sse", protocol: chatCC, replies: []wantReply{{outcome: "failed", failure: llamaContext, usage: "-/-/-/-"}}},
	{file: "lmstudio-responses-text.jsonl", protocol: respRS, replies: []wantReply{{
		outcome: "answered", answer: "## The Festival of Whispering Leaves (Feasts  … h your roots through storytelling around fire",
		usage: "31/30/282/0",
	}}},
	{file: "lmstudio-responses-tool-call.jsonl", protocol: respRS, replies: []wantReply{{
		outcome: "tools", answer: "I'll get the current weather information for San Francisco for you.",
		reasoning: "The user is asking for the weather in San Fra … quired information to make the function call.",
		calls:     []wantCall{{"call_2025306790300011", "weather", `{"location":"San Francisco"}`}},
		usage:     "182/2/61/48",
	}}},
	{file: "mistral-glm-tool-call.jsonl", protocol: chatCC, replies: []wantReply{{
		outcome: "tools", calls: []wantCall{{"chatcmpl-tool-9f149c74c42f265b", "webSearchTool", `{"query": "current Berlin weather"}`}},
		usage: "171/128/14/-",
	}}},
	{file: "mistral-magistral-thinking.jsonl", protocol: chatCC, replies: []wantReply{{
		outcome: "answered", answer: "2 + 2 = 4", reasoning: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
		usage: "10/-/46/-",
	}}},
	{file: "openai-chat-length.sse", protocol: chatCC, replies: []wantReply{{
		outcome: "answered", answer: `{"`, truncated: true, usage: "79/-/1/0",
	}}},
	{file: "openai-chat-n3.sse", protocol: chatCC, replies: []wantReply{{
		outcome: "answered", answer: `{"city":"San Francisco","temperature":65,"units":"f"}`, usage: "79/-/42/0",
	}}},
	{file: "openai-chat-parallel-tools.sse", protocol: chatCC, replies: []wantReply{{
		outcome: "tools", calls: []wantCall{
			{"call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", `{"city": "Edinburgh", "country": "GB", "units": "c"}`},
			{"call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", `{"ticker": "AAPL", "exchange": "NASDAQ"}`},
		},
		usage: "149/-/60/0",
	}}},
	{file: "openai-chat-refusal.sse", protocol: chatCC, replies: []wantReply{{
		outcome: "answered", answer: "I'm sorry, I can't assist with that request.", refusal: true, usage: "79/-/11/0",
	}}},
	{file: "openai-chat-stream-error.sse", protocol: chatCC, replies: []wantReply{{
		outcome: "failed", failure: "The server had an error while processing your request. Sorry about that!",
		partial: `The question "`, usage: "-/-/-/-",
	}}},
	{file: "openai-chat-text.sse", protocol: chatCC, replies: []wantReply{{outcome: "answered", answer: openaiChatText, usage: "14/-/30/0"}}},
	{file: "openai-chat-text.sse", protocol: chatCC, framing: crlf, framingName: "crlf without [DONE]",
		replies: []wantReply{{outcome: "answered", answer: openaiChatText, usage: "14/-/30/0"}}},
	{file: "openai-chat-text.sse", protocol: chatCC, framing: keepAlive, framingName: "OpenRouter keep-alive comments",
		replies: []wantReply{{outcome: "answered", answer: openaiChatText, usage: "14/-/30/0"}}},
	{file: "openai-responses-parallel-calls.sse", protocol: respRS, replies: []wantReply{{
		outcome: "tools", reasoning: "The user wants two additions: 3+5 and 10+20. I'll call add for both.",
		calls: []wantCall{{"call_ParallelStreamFirst001", "add", `{"a":3,"b":5}`}, {"call_ParallelStreamSecond01", "add", `{"a":10,"b":20}`}},
		usage: "65/0/30/0",
	}}},
	{file: "openai-responses-phase.jsonl", protocol: respRS, replies: []wantReply{{
		outcome:    "answered",
		commentary: "Got it — I’ll quickly check reliable, up-to-d …  and then summarize the key items with links.",
		answer:     "Here are a few **AI headlines for today (Wedn … investor-grade morning brief with timestamps.",
		usage:      "7112/3072/463/64",
	}}},
	{file: "openai-responses-quota-error.jsonl", protocol: respRS, replies: []wantReply{{
		outcome: "failed", failure: "You exceeded your current quota, please check your plan and billing details.", usage: "-/-/-/-",
	}}},
	{file: "openai-responses-reasoning-encrypted-tool.jsonl", protocol: respRS, replies: []wantReply{
		{outcome: "tools", reasoning: "**Calculating step-by-step using calculator** … iply that by 10, reporting the final product.",
			calls: []wantCall{{"call_AB6AaRZ1FYZB2RwS6A5vbdqn", "calculator", `{"a":12,"b":7,"op":"add"}`}}, usage: "134/0/28/0"},
		{outcome: "tools", calls: []wantCall{{"call_Q6pW65MUgW9vF59BmItYGos3", "calculator", `{"a":19,"b":3,"op":"multiply"}`}}, usage: "221/0/26/0"},
		{outcome: "tools", calls: []wantCall{{"call_Zl5vIMnD7dVAjgU6FkhmiCZh", "calculator", `{"a":57,"b":10,"op":"multiply"}`}}, usage: "260/0/26/0"},
		{outcome: "answered", answer: "The final result is **570**.", usage: "299/0/12/0"},
	}},
	{file: "openai-responses-stream-error.sse", protocol: respRS, replies: []wantReply{{
		outcome: "failed", failure: "Something went wrong", partial: "Hello", usage: "-/-/-/-",
	}}},
	{file: "openai-responses-stream-failure.sse", protocol: respRS, replies: []wantReply{{
		outcome: "failed", failure: "The model failed to generate a response.", partial: "Hello", usage: "-/-/-/-",
	}}},
	{file: "openai-responses-text.sse", protocol: respRS, replies: []wantReply{{outcome: "answered", answer: openaiRespText, usage: "11/0/18/0"}}},
	{file: "openai-responses-text.sse", protocol: respRS, framing: crlf, framingName: "crlf",
		replies: []wantReply{{outcome: "answered", answer: openaiRespText, usage: "11/0/18/0"}}},
	{file: "openai-responses-web-search.jsonl", protocol: respRS, replies: []wantReply{{
		outcome: "answered", answer: "I checked today’s tech headlines (today = Dec … coverage pages and pull out more details now?",
		notes: 6, usage: "31073/3712/4416/3712",
	}}},
	{file: "vllm-error-then-done.sse", protocol: chatCC, replies: []wantReply{{outcome: "failed", failure: vllmTooLong, usage: "-/-/-/-"}}},
	{file: "vllm-old-error-then-done.sse", protocol: chatCC, replies: []wantReply{{outcome: "failed", failure: vllmTooLong, usage: "-/-/-/-"}}},
	{file: "xai-grok-tool-call.jsonl", protocol: chatCC, replies: []wantReply{{
		outcome: "tools", reasoning: "First, the user is", calls: []wantCall{{"call_55117580", "weather", `{"location":"San Francisco"}`}},
		usage: "291/290/26/196",
	}}},
	{file: "xai-responses-reasoning-store-false.jsonl", protocol: respRS, endpoint: func(ep *albedo.Endpoint) { ep.Model = "grok-4-fast"; ep.Reasoning = new(true) }, replies: []wantReply{{
		outcome: "answered", answer: "### Overview of Sonoran Cuisine\nSonoran cuisi … t's bounty for authentic, approachable meals.",
		reasoning: `First, the question is: "What is specifically … ibility, possibly using sections for clarity.`,
		usage:     "216/192/831/253",
	}}},
}

// reasoningContent is the setting DeepSeek's thinking mode needs.
func reasoningContent(ep *albedo.Endpoint) { ep.ReasoningContent = true }

// TestWireRecordingsEveryFileHasARow keeps the table complete: a recording
// added to the corpus without a row fails here.
func TestWireRecordingsEveryFileHasARow(t *testing.T) {
	dir := wireDir(t)
	files, err := filepathGlob(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, c := range wireCases {
		rows[c.file] = true
	}
	for _, f := range files {
		if !rows[f] {
			t.Errorf("recording %s has no row in wireCases", f)
		}
	}
}

// TestWireRecordings replays every recorded stream through the adapter as
// one session would meet it: each response of a recording answers one
// request, tool calls get outputs that the next request carries back, and
// a session whose last reply called tools asks once more, so that every
// call is seen paired with its output. Every request sent is checked
// against OpenAI's published request schemas.
func TestWireRecordings(t *testing.T) {
	dir := wireDir(t)
	for _, tc := range wireCases {
		t.Run(tc.name(), func(t *testing.T) {
			rec := loadRecording(t, dir, tc.file)
			if len(rec.bodies) != len(tc.replies) {
				t.Fatalf("recording holds %d responses, the row expects %d", len(rec.bodies), len(tc.replies))
			}
			bodies := rec.bodies
			if tc.framing != nil {
				bodies = make([][]byte, len(rec.bodies))
				for i, b := range rec.bodies {
					bodies[i] = tc.framing(b)
				}
			}
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n > len(bodies) {
					if tc.protocol == chatCC {
						streamEvents(w, chatText("thanks")...)
					} else {
						streamEvents(w, responsesText()...)
					}
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(bodies[n-1])
			})
			ep := endpoint(p, tc.protocol)
			ep.Provider = "wire"
			if tc.endpoint != nil {
				tc.endpoint(&ep)
			}
			c := New(Options{MaxRetries: -1})
			transcript := []albedo.Item{{Kind: albedo.KindUser, Text: "Hello"}}
			var lastCalls []albedo.Item
			for i, want := range tc.replies {
				var streamed deltas
				req := albedo.ModelRequest{
					Endpoint: ep, Instructions: "Be brief.", Tools: []albedo.Tool{albedo.PythonTool()},
					Input: projection.ProjectFor(transcript, ep), SessionID: "session-1",
				}
				reply, err := c.Stream(context.Background(), req, streamed.add)
				checkReply(t, fmt.Sprintf("response %d", i+1), want, reply, err)
				transcript = append(transcript, reply.Items...)
				lastCalls = nil
				for _, it := range reply.Items {
					if it.Kind == albedo.KindToolCall {
						lastCalls = append(lastCalls, it)
						transcript = append(transcript, albedo.Item{Kind: albedo.KindToolOutput, CallID: it.CallID, ToolName: it.ToolName, Text: "output of " + it.CallID})
					}
				}
				if err != nil {
					break
				}
			}
			if len(lastCalls) > 0 {
				req := albedo.ModelRequest{Endpoint: ep, Tools: []albedo.Tool{albedo.PythonTool()}, Input: projection.ProjectFor(transcript, ep), SessionID: "session-1"}
				if _, err := c.Stream(context.Background(), req, nil); err != nil {
					t.Fatalf("request after the tool calls: %v", err)
				}
			}
			seen := p.seen()
			for i, r := range seen {
				checkPaired(t, i+1, tc.protocol, r.Body)
				if r.Body["prompt_cache_key"] != "session-1" {
					t.Errorf("request %d: prompt_cache_key = %v, want the session id", i+1, r.Body["prompt_cache_key"])
				}
				problems, err := requestChecker(t).check(string(tc.protocol), r.Body)
				if err != nil {
					t.Fatal(err)
				}
				for _, problem := range problems {
					t.Errorf("request %d is outside the published schema: %s", i+1, problem)
				}
			}
			if len(lastCalls) > 0 {
				last := seen[len(seen)-1].Body
				for _, call := range lastCalls {
					if !strings.Contains(string(mustMarshal(last)), call.CallID) {
						t.Errorf("the request after the calls does not carry call %s back", call.CallID)
					}
				}
			}
		})
	}
}

// checkReply compares one reply with what the user should see.
func checkReply(t *testing.T, label string, want wantReply, reply albedo.ModelReply, err error) {
	t.Helper()
	var answer, commentary, reasoning []string
	var calls []wantCall
	var refusal, truncated, partial bool
	notes := 0
	for _, it := range reply.Items {
		switch it.Kind {
		case albedo.KindAssistant:
			if it.Flags&albedo.FlagCommentary != 0 {
				commentary = append(commentary, it.Text)
			} else {
				answer = append(answer, it.Text)
			}
		case albedo.KindReasoning:
			if it.Text != "" {
				reasoning = append(reasoning, it.Text)
			}
		case albedo.KindToolCall:
			calls = append(calls, wantCall{it.CallID, it.ToolName, it.Arguments})
		case albedo.KindNote:
			notes++
		}
		refusal = refusal || it.Flags&albedo.FlagRefusal != 0
		truncated = truncated || it.Flags&albedo.FlagTruncated != 0
		partial = partial || it.Flags&albedo.FlagPartial != 0
		if !hasNativeForm(it) || it.Protocol == "" {
			t.Errorf("%s: item %s has no native JSON or protocol: %+v", label, it.Kind, it)
		}
	}
	outcome := "answered"
	switch {
	case err != nil:
		outcome = "failed"
	case len(calls) > 0:
		outcome = "tools"
	case len(answer) == 0:
		outcome = "empty"
	}
	if outcome != want.outcome {
		t.Errorf("%s: outcome %s (error %v), want %s", label, outcome, err, want.outcome)
	}
	if err != nil {
		var e *albedo.Error
		if !errors.As(err, &e) || e.Code != CodeProviderError {
			t.Errorf("%s: error %v is not a provider error", label, err)
		}
		if want.failure == "" || !strings.Contains(err.Error(), want.failure) {
			t.Errorf("%s: error %q does not carry the provider's message %q", label, err, want.failure)
		}
		text := strings.Join(answer, "")
		if text != want.partial || (want.partial != "" && !partial) {
			t.Errorf("%s: kept %q (flagged partial %v), want %q flagged partial", label, text, partial, want.partial)
		}
		if len(calls) > 0 {
			t.Errorf("%s: a failed reply kept tool calls %v", label, calls)
		}
	} else {
		matchText(t, label+": answer", strings.Join(answer, ""), want.answer)
		if partial {
			t.Errorf("%s: a whole reply is flagged partial", label)
		}
	}
	matchText(t, label+": commentary", strings.Join(commentary, ""), want.commentary)
	if err == nil {
		matchText(t, label+": reasoning", strings.Join(reasoning, "\n\n"), want.reasoning)
	}
	if fmt.Sprint(calls) != fmt.Sprint(want.calls) {
		t.Errorf("%s: calls %v, want %v", label, calls, want.calls)
	}
	if got := usageString(reply.Usage); got != want.usage {
		t.Errorf("%s: usage %s, want %s", label, got, want.usage)
	}
	if refusal != want.refusal || truncated != want.truncated {
		t.Errorf("%s: refusal %v truncated %v, want %v and %v", label, refusal, truncated, want.refusal, want.truncated)
	}
	if notes != want.notes {
		t.Errorf("%s: %d notes, want %d", label, notes, want.notes)
	}
}

// matchText compares text with want, which is exact or "start … end".
func matchText(t *testing.T, label, got, want string) {
	t.Helper()
	if start, end, ok := strings.Cut(want, " … "); ok {
		if !strings.HasPrefix(got, start) || !strings.HasSuffix(got, end) || len(got) < len(start)+len(end) {
			t.Errorf("%s = %q, want it to start %q and end %q", label, clip(got), start, end)
		}
		return
	}
	if got != want {
		t.Errorf("%s = %q, want %q", label, clip(got), want)
	}
}

func clip(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:100]) + " … " + string(r[len(r)-100:])
	}
	return s
}

// usageString renders usage as "input/cached/output/reasoning".
func usageString(u albedo.Usage) string {
	n := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return n(u.InputTokens) + "/" + n(u.CachedTokens) + "/" + n(u.OutputTokens) + "/" + n(u.ReasoningTokens)
}

// checkPaired checks that every tool call a request carries is followed by
// its output, and every output answers a call.
func checkPaired(t *testing.T, n int, protocol albedo.Protocol, body map[string]any) {
	t.Helper()
	calls, outputs := map[string]int{}, map[string]int{}
	key := "input"
	if protocol == chatCC {
		key = "messages"
	}
	items, _ := body[key].([]any)
	for i, raw := range items {
		m, _ := raw.(map[string]any)
		switch {
		case m["type"] == "function_call":
			calls[fmt.Sprint(m["call_id"])] = i
		case m["type"] == "function_call_output", m["role"] == "tool":
			id := fmt.Sprint(m["call_id"])
			if m["role"] == "tool" {
				id = fmt.Sprint(m["tool_call_id"])
			}
			outputs[id] = i
		case m["role"] == "assistant":
			list, _ := m["tool_calls"].([]any)
			for _, c := range list {
				cm, _ := c.(map[string]any)
				calls[fmt.Sprint(cm["id"])] = i
			}
		}
	}
	for id, at := range calls {
		if out, ok := outputs[id]; !ok || out < at {
			t.Errorf("request %d: call %s is not followed by its output", n, id)
		}
	}
	for id := range outputs {
		if _, ok := calls[id]; !ok {
			t.Errorf("request %d: output for unknown call %s", n, id)
		}
	}
}

// filepathGlob lists the recordings' file names.
func filepathGlob(dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "recordings"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, nil
}
