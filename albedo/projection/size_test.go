package projection

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestJSONStringLenIsTheEncodedLength(t *testing.T) {
	tests := []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\x00\x01\x1f\x7f", "<html> & </html>", "ünïcödé ✓ 🎉", "line\u2028sep\u2029", "bad \xff utf8 \xe2\x82", "\xf0\x9f"}
	for _, s := range tests {
		if got, want := jsonStringLen(s), len(appendJSONString(nil, s)); got != want {
			t.Errorf("jsonStringLen(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestMarshaledStringLenIsTheEncodedLength(t *testing.T) {
	for _, s := range marshaledStrings {
		if got, want := marshaledStringLen(s), len(appendMarshaledString(nil, s)); got != want {
			t.Errorf("marshaledStringLen(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzJSONStringLen(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\n\t", "\xff\xfe", "é\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := jsonStringLen(s), len(appendJSONString(nil, s)); got != want {
			t.Fatalf("jsonStringLen(%q) = %d, want %d", s, got, want)
		}
	})
}

// A long text is counted, not encoded: the size is the projection's all
// the same, for each protocol and kind of item that carries one.
func TestProjectedSizeCountsLongTextsExactly(t *testing.T) {
	long := strings.Repeat("a \"quoted\" line\n\tü ✓\u2028 ", longText/8)
	items := []albedo.Item{
		{Seq: 1, Kind: albedo.KindUser, Text: long},
		{Seq: 2, Kind: albedo.KindAssistant, Text: long, Protocol: albedo.ProtocolChatCompletions},
		{Seq: 3, Kind: albedo.KindToolCall, CallID: "c", ToolName: "python", Arguments: `{"code":"1"}`},
		{Seq: 4, Kind: albedo.KindToolOutput, CallID: "c", Text: long},
		{Seq: 5, Kind: albedo.KindAssistant, Text: "short"},
	}
	for _, protocol := range []albedo.Protocol{albedo.ProtocolChatCompletions, albedo.ProtocolResponses} {
		var want int64
		for _, raw := range Project(items, protocol) {
			want += int64(len(raw)) + 1
		}
		if got := projectedSize(items, protocol); got != want {
			t.Errorf("%s: projectedSize = %d, want %d", protocol, got, want)
		}
	}
	if items[1].Text != long {
		t.Error("projectedSize changed the items it measured")
	}
}
