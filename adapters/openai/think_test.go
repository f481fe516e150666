package openai

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestThinkSplitter(t *testing.T) {
	tests := []struct {
		name                   string
		fragments              []string
		wantReasoning, wantAns string
	}{
		{"whole block in one fragment", []string{"<think>plan</think>\n\nanswer"}, "plan", "answer"},
		{"tags cut between fragments", []string{"<th", "ink>pl", "an</th", "ink>", "ans", "wer"}, "plan", "answer"},
		{"leading white space", []string{"\n <think>a</think>b"}, "a", "b"},
		{"no block", []string{"plain ", "answer"}, "", "plain answer"},
		{"a tag later in the answer is text", []string{"x <think>y</think>"}, "", "x <think>y</think>"},
		{"unclosed block is reasoning", []string{"<think>still ", "thinking"}, "still thinking", ""},
		{"only a possible tag", []string{"<thi"}, "", "<thi"},
		{"closing tag look-alike inside", []string{"<think>a </t", "able>", "</think>b"}, "a </table>", "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r, a strings.Builder
			var s thinkSplitter
			for _, f := range tt.fragments {
				s.feed(f, func(x string) { r.WriteString(x) }, func(x string) { a.WriteString(x) })
			}
			s.end(func(x string) { r.WriteString(x) }, func(x string) { a.WriteString(x) })
			if r.String() != tt.wantReasoning || a.String() != tt.wantAns {
				t.Errorf("reasoning %q answer %q, want %q and %q", r.String(), a.String(), tt.wantReasoning, tt.wantAns)
			}
		})
	}
}

func TestChatThinkTagsFollowTheProviderSetting(t *testing.T) {
	blocks := []string{
		data(`{"choices":[{"index":0,"delta":{"content":"<think>\nweigh"}}]}`),
		data(`{"choices":[{"index":0,"delta":{"content":" options</th"}}]}`),
		data(`{"choices":[{"index":0,"delta":{"content":"ink>\n\n42"}}]}`),
		data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		data("[DONE]"),
	}
	tests := []struct {
		on                     bool
		wantReasoning, wantAns string
	}{
		{true, "\nweigh options", "42"},
		{false, "", "<think>\nweigh options</think>\n\n42"},
	}
	for _, tt := range tests {
		p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, blocks...) })
		ep := endpoint(p, albedo.ProtocolChatCompletions)
		ep.ThinkTags = tt.on
		var got deltas
		reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: ep}, got.add)
		if err != nil {
			t.Fatal(err)
		}
		var reasoning, answer string
		for _, it := range reply.Items {
			switch it.Kind {
			case albedo.KindReasoning:
				reasoning = it.Text
			case albedo.KindAssistant:
				answer = it.Text
			}
		}
		if reasoning != tt.wantReasoning || answer != tt.wantAns {
			t.Errorf("thinkTags %v: reasoning %q answer %q, want %q and %q", tt.on, reasoning, answer, tt.wantReasoning, tt.wantAns)
		}
		if got.text[albedo.DeltaReasoning] != tt.wantReasoning || got.text[albedo.DeltaText] != tt.wantAns {
			t.Errorf("thinkTags %v: streamed %q", tt.on, got.text)
		}
	}
}

func TestResponsesThinkTagsFollowTheProviderSetting(t *testing.T) {
	final := `{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"<think>weigh</think>42","annotations":[],"logprobs":[]}]}`
	streamed := []string{
		data(`{"type":"response.output_text.delta","output_index":0,"delta":"<think>we"}`),
		data(`{"type":"response.output_text.delta","output_index":0,"delta":"igh</think>42"}`),
	}
	// The items come from the final output, or from the deltas alone when
	// the provider sends none.
	for _, c := range []struct {
		on     bool
		blocks []string
	}{
		{true, append(slices.Clip(streamed), data(`{"type":"response.completed","response":{"output":[`+final+`]}}`))},
		{false, append(slices.Clip(streamed), data(`{"type":"response.completed","response":{"output":[`+final+`]}}`))},
		{true, append(slices.Clip(streamed), data(`{"type":"response.completed","response":{"output":[]}}`))},
		{false, append(slices.Clip(streamed), data(`{"type":"response.completed","response":{"output":[]}}`))},
	} {
		on, blocks := c.on, c.blocks
		p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { streamEvents(w, blocks...) })
		ep := endpoint(p, albedo.ProtocolResponses)
		ep.ThinkTags = on
		var got deltas
		reply, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: ep}, got.add)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, it := range reply.Items {
			kinds = append(kinds, string(it.Kind)+":"+it.Text)
		}
		want := "assistant:<think>weigh</think>42"
		wantStream := map[albedo.DeltaKind]string{albedo.DeltaText: "<think>weigh</think>42"}
		if on {
			want = "reasoning:weigh assistant:42"
			wantStream = map[albedo.DeltaKind]string{albedo.DeltaReasoning: "weigh", albedo.DeltaText: "42"}
		}
		if strings.Join(kinds, " ") != want {
			t.Errorf("thinkTags %v: items %q, want %q", on, kinds, want)
		}
		for k, v := range wantStream {
			if got.text[k] != v {
				t.Errorf("thinkTags %v: streamed %q", on, got.text)
			}
		}
	}
}
