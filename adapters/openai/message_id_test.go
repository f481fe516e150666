package openai

import (
	"encoding/json"
	"testing"
)

// TestWithoutIDCutsTheTopLevelIDOnly: the provider's id goes wherever it
// stands; everything else stays byte for byte, nested ids too.
func TestWithoutIDCutsTheTopLevelIDOnly(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"id":"rs1","type":"reasoning"}`, `{"type":"reasoning"}`},
		{`{"type": "message", "id": "m1", "content": []}`, `{"type": "message", "content": []}`},
		{`{"type":"function_call","call_id":"c1","id":"fc1"}`, `{"type":"function_call","call_id":"c1"}`},
		{`{ "id" : {"nested": [1, "id"]} , "a": 1}`, `{  "a": 1}`},
		{`{"id":"x"}`, `{}`},
		{`{"type":"message","content":[{"id":"inner","text":"\"id\""}]}`, `{"type":"message","content":[{"id":"inner","text":"\"id\""}]}`},
		{`{"type":"no id here"}`, `{"type":"no id here"}`},
		{`["id"]`, `["id"]`},
		{`{"id":`, `{"id":`},
	}
	for _, tt := range tests {
		got := string(withoutID(json.RawMessage(tt.in)))
		if got != tt.want {
			t.Errorf("withoutID(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
			t.Errorf("withoutID(%s) = %s is not JSON", tt.in, got)
		}
	}
}

// TestUnstoredLeavesTheCallersItemsAlone: an old item that still carries
// its id is sent without it; the items handed in are not changed.
func TestUnstoredLeavesTheCallersItemsAlone(t *testing.T) {
	items := []json.RawMessage{json.RawMessage(`{"type":"a"}`), json.RawMessage(`{"id":"x","type":"b"}`)}
	out := unstored(items)
	if string(out[1]) != `{"type":"b"}` || string(out[0]) != `{"type":"a"}` {
		t.Errorf("unstored = %s", out)
	}
	if string(items[1]) != `{"id":"x","type":"b"}` {
		t.Errorf("the caller's item changed: %s", items[1])
	}
}
