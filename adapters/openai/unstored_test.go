package openai

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestUnstoredDropsServerIDsOnly(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"call", `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"python","arguments":"{}"}`, `{"type":"function_call","call_id":"call_1","name":"python","arguments":"{}"}`},
		{"reasoning keeps its encrypted content", `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"abc"}`, `{"type":"reasoning","summary":[],"encrypted_content":"abc"}`},
		{"first member", `{"id": "m1", "type":"message"}`, `{ "type":"message"}`},
		{"last member", `{"type":"message" , "id": "m1" }`, `{"type":"message"  }`},
		{"only member", `{"id":"m1"}`, `{}`},
		{"nested ids stay", `{"type":"message","content":[{"id":"x","text":"{\"id\":1}"}],"id":"m1"}`, `{"type":"message","content":[{"id":"x","text":"{\"id\":1}"}]}`},
		{"user message untouched", `{"type":"message","role":"user","content":[{"type":"input_text","text":"an \"id\" in text"}]}`, `{"type":"message","role":"user","content":[{"type":"input_text","text":"an \"id\" in text"}]}`},
		{"output untouched", `{"type":"function_call_output","call_id":"call_1","output":"ok"}`, `{"type":"function_call_output","call_id":"call_1","output":"ok"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			if changed, ok := unstored([]json.RawMessage{json.RawMessage(tt.in)})[0]; ok {
				got = string(changed.bytes())
			}
			if got != tt.want {
				t.Errorf("unstored(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// BenchmarkUnstored10k measures preparing a 10,000-item Responses input,
// half of it native items carrying server ids.
func BenchmarkUnstored10k(b *testing.B) {
	items := make([]json.RawMessage, 10_000)
	for i := range items {
		if i%2 == 0 {
			items[i] = json.RawMessage(`{"type":"function_call","id":"fc_0123456789","call_id":"call_1","name":"python","arguments":"{\"code\":\"print(1)\"}","status":"completed"}`)
		} else {
			items[i] = json.RawMessage(`{"type":"function_call_output","call_id":"call_1","output":"{\"status\":\"ok\",\"output\":\"1\\n\"}"}`)
		}
	}
	for b.Loop() {
		unstored(items)
	}
}

// FuzzWithoutTopLevelID checks the scanner against decoding: the result
// decodes to the input's members less "id", or the input is unchanged.
func FuzzWithoutTopLevelID(f *testing.F) {
	for _, s := range []string{`{"id":"a","b":[1,{"id":2}]}`, `{"a":"\"id\"","id":null}`, `{ "x" : { "id" : 1 } , "id" : true }`, `[1]`, `{"id":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var in map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &in) != nil {
			return
		}
		got := []byte(s)
		if e, ok := withoutTopLevelID(got); ok {
			got = e.bytes()
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(got, &out); err != nil {
			t.Fatalf("%s became invalid JSON %s: %v", s, got, err)
		}
		delete(in, "id")
		if len(in) != len(out) {
			t.Fatalf("%s became %s", s, got)
		}
		for k, v := range in {
			if !bytes.Equal(bytes.TrimSpace(out[k]), bytes.TrimSpace(v)) {
				t.Fatalf("%s: member %q changed to %s", s, k, out[k])
			}
		}
	})
}

// What strippedItems remembers is always what unstored makes: for items
// seen before, items sharing the first byte of another but shorter, and
// after the budget made it forget.
func TestStrippedItemsAnswersAsUnstored(t *testing.T) {
	buf := []byte(`{"type":"function_call","id":"fc_1","call_id":"c","name":"python","arguments":"{}"}{"id":"m"}`)
	call := json.RawMessage(buf[:83])
	whole := json.RawMessage(buf)
	big := json.RawMessage(`{"type":"message","id":"m2","content":"` + string(bytes.Repeat([]byte("x"), strippedMaxItem)) + `"}`)
	plain := json.RawMessage(`{"type":"function_call_output","call_id":"c","output":"{\"id\":1}"}`)
	rounds := [][]json.RawMessage{
		{call, plain},
		{call, plain, big},
		{whole, call},
		{call, plain, big, whole},
	}
	var m strippedItems
	check := func(items []json.RawMessage) {
		t.Helper()
		got, want := m.changes(items), unstored(items)
		if len(got) != len(want) {
			t.Fatalf("changes = %d items, unstored %d", len(got), len(want))
		}
		for i, w := range want {
			if !bytes.Equal(got[i].bytes(), w.bytes()) {
				t.Fatalf("item %d = %s, want %s", i, got[i].bytes(), w.bytes())
			}
		}
	}
	for _, items := range rounds {
		check(items)
	}
	m.bytes = strippedBudget + 1
	for _, items := range rounds {
		check(items)
	}
	if len(m.seen) == 0 || m.bytes > strippedBudget {
		t.Errorf("remembers %d items in %d bytes", len(m.seen), m.bytes)
	}
	if _, ok := m.seen[&big[0]]; ok {
		t.Error("an item over strippedMaxItem is remembered")
	}
}
