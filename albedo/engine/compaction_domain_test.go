package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/albedo/projection"
)

// unitTranscript is three units: a user message answered through a call,
// a restart note answered with text, and a user message with an image.
func unitTranscript() []albedo.Item {
	call := albedo.Item{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: `{"code":"print(1)"}`}
	return []albedo.Item{
		{Kind: albedo.KindUser, Text: "one"},
		{Kind: albedo.KindReasoning, Text: "thinking"},
		call,
		{Kind: albedo.KindToolOutput, CallID: "c1", ToolName: "python", Text: "1\n"},
		{Kind: albedo.KindAssistant, Text: "printed"},
		{Kind: albedo.KindTurn, Text: albedo.TurnFinished},
		{Kind: albedo.KindUser, Source: "daemon restart", Text: "the daemon restarted"},
		{Kind: albedo.KindAssistant, Text: "noted"},
		{Kind: albedo.KindUser, Text: "three", Image: &albedo.Image{MimeType: "image/png", Width: 2, Height: 3, Bytes: 4, Data: []byte("DATA")}},
		{Kind: albedo.KindAssistant, Text: "seen"},
	}
}

func TestRenderEvicted(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name     string
		previous string
		items    []albedo.Item
		want     []string
		absent   []string
	}{
		{"no previous summary", "", unitTranscript()[:6],
			[]string{"<previous-summary>\n(none)\n</previous-summary>\n<newly-evicted-history>\n", "[user]\none", "[python call c1]\nprint(1)", "[output of c1]\n1\n", "[assistant]\nprinted", "</newly-evicted-history>"},
			[]string{albedo.TurnFinished}},
		{"carries the previous summary", "earlier", unitTranscript()[6:8],
			[]string{"<previous-summary>\nearlier\n</previous-summary>", "[system note (daemon restart)]\nthe daemon restarted"}, nil},
		{"image metadata, never data", "", unitTranscript()[8:],
			[]string{"[image: image/png, 2x3, 4 bytes]"}, []string{"DATA", "base64"}},
		{"an image a cell showed: metadata, never data", "", []albedo.Item{{Kind: albedo.KindToolImage, CallID: "c1", ToolName: "python", Image: &albedo.Image{MimeType: "image/png", Width: 2, Height: 3, Bytes: 4, Data: []byte("DATA")}}},
			[]string{"[image shown by c1: image/png, 2x3, 4 bytes]"}, []string{"DATA"}},
		{"long texts cut with a marker", "", []albedo.Item{{Kind: albedo.KindAssistant, Text: long}},
			[]string{strings.Repeat("x", 4000) + "\n[… 1000 more bytes cut]"}, []string{strings.Repeat("x", 4001)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := compaction.RenderEvicted(tc.previous, tc.items)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("rendering lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("rendering holds %q:\n%s", a, got)
				}
			}
		})
	}
}

func TestProjectCompacted(t *testing.T) {
	items := unitTranscript()
	state := func(users int) albedo.Compaction {
		return albedo.Compaction{Summary: "S", Users: users, Fingerprint: compaction.Fingerprint(items, users)}
	}
	bad := state(1)
	bad.Fingerprint = "other"
	tests := []struct {
		name  string
		state albedo.Compaction
		users []string
	}{
		{"one unit evicted", state(1), []string{compaction.SummaryPrefix + "\nS\n\n[the user's latest earlier messages, verbatim, oldest first]\n> one",
			`<system-note origin="daemon restart">the daemon restarted</system-note>`, "three"}},
		{"two units evicted; notes are not quoted", state(2), []string{compaction.SummaryPrefix + "\nS\n\n[the user's latest earlier messages, verbatim, oldest first]\n> one", "three"}},
		{"a mismatched fingerprint is ignored", bad, []string{"one", `<system-note origin="daemon restart">the daemon restarted</system-note>`, "three"}},
		{"the newest unit is never cut", state(3), []string{"one", `<system-note origin="daemon restart">the daemon restarted</system-note>`, "three"}},
		{"no state", albedo.Compaction{}, []string{"one", `<system-note origin="daemon restart">the daemon restarted</system-note>`, "three"}},
	}
	for _, tc := range tests {
		for _, p := range []albedo.Protocol{albedo.ProtocolResponses, albedo.ProtocolChatCompletions} {
			t.Run(fmt.Sprintf("%s/%s", tc.name, p), func(t *testing.T) {
				input := projection.ProjectCompacted(items, tc.state, albedo.Endpoint{Protocol: p})
				got := userTexts(t, input)
				if strings.Join(got, "|") != strings.Join(tc.users, "|") {
					t.Errorf("users = %q\nwant %q", got, tc.users)
				}
				callsPaired(t, input)
			})
		}
	}
}

func TestFingerprint(t *testing.T) {
	items := unitTranscript()
	changed := unitTranscript()
	changed[0].Text = "uno"
	if compaction.Fingerprint(items, 1) == compaction.Fingerprint(changed, 1) {
		t.Error("a changed user message keeps its fingerprint")
	}
	if compaction.Fingerprint(items, 2) != compaction.Fingerprint(append(items[:8:8], albedo.Item{Kind: albedo.KindUser, Text: "new"}), 2) {
		t.Error("a later message changed the fingerprint of earlier ones")
	}
	if compaction.Fingerprint(items, 4) != "" {
		t.Error("a fingerprint of more user messages than there are")
	}
}

func TestContextFull(t *testing.T) {
	provider := func(msg string, details map[string]any) error {
		return fmt.Errorf("ask: %w", &albedo.Error{Code: albedo.EProvider, Message: msg, Details: details})
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"OpenAI's code", provider("answered 400 Bad Request: too long", map[string]any{"provider_code": "context_length_exceeded"}), true},
		{"OpenAI's message", provider("This model's Maximum Context Length is 8192 tokens", nil), true},
		{"vLLM", provider("This model's maximum model length is 4096 tokens", nil), true},
		{"llama.cpp", provider("the request exceeds the available context size, try increasing it", nil), true},
		{"another provider error", provider("answered 429 Too Many Requests", map[string]any{"provider_code": "rate_limit_exceeded"}), false},
		{"not a provider error", &albedo.Error{Code: albedo.EInvalid, Message: "maximum context length"}, false},
		{"a plain error", errors.New("maximum context length"), false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := albedo.ContextFull(tc.err); got != tc.want {
				t.Errorf("ContextFull = %v; want %v", got, tc.want)
			}
		})
	}
}
