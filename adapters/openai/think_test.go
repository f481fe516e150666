package openai

import (
	"strings"
	"testing"
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
