package albedo

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// refJSON is the JSON string of a reference.
func refJSON(ref string) string {
	b, _ := json.Marshal(ref)
	return string(b)
}

func TestNativeJSONPutsTheLongStringsBack(t *testing.T) {
	text := "first \"part\" ü\n" + "second ✓"
	first := len("first \"part\" ü\n")
	tests := []struct {
		name string
		it   Item
		want string // "" when the item has no native form
	}{
		{"no reference", Item{Text: "x", Raw: json.RawMessage(`{"type":"message","text":"x"}`)},
			`{"type":"message","text":"x"}`},
		{"the whole text",
			Item{Text: text, Raw: json.RawMessage(`{"type":"message","content":[{"text":` + refJSON(TextRef(0, len(text))) + `}]}`)},
			`{"type":"message","content":[{"text":` + string(appendJSONString(nil, text)) + `}]}`},
		{"two parts of the text",
			Item{Text: text, Raw: json.RawMessage(`{"summary":[{"text":` + refJSON(TextRef(0, first)) + `},{"text":` + refJSON(TextRef(first, len(text)-first)) + `}]}`)},
			`{"summary":[{"text":` + string(appendJSONString(nil, text[:first])) + `},{"text":` + string(appendJSONString(nil, text[first:])) + `}]}`},
		{"the arguments",
			Item{Arguments: `{"code": "1"}`, Raw: json.RawMessage(`{"type":"function_call","arguments":` + refJSON(ArgumentsRef(0, 13)) + `}`)},
			`{"type":"function_call","arguments":"{\"code\": \"1\"}"}`},
		{"a text that only looks like a reference inside another string",
			Item{Text: "x", Raw: json.RawMessage(`{"text":"a \"\u0000albedo:text:0:1\" b"}`)},
			`{"text":"a \"\u0000albedo:text:0:1\" b"}`},
		{"a reference past the text", Item{Text: "x", Raw: json.RawMessage(`{"text":` + refJSON(TextRef(0, 2)) + `}`)}, ""},
		{"a reference of another field", Item{Text: "x", Raw: json.RawMessage(`{"text":"\u0000albedo:name:0:1"}`)}, ""},
		{"a malformed reference", Item{Text: "x", Raw: json.RawMessage(`{"text":"\u0000albedo:text:zero:1"}`)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.it.NativeJSON()
			if tt.want == "" {
				if ok {
					t.Fatalf("NativeJSON = %s, want no native form", got)
				}
				return
			}
			if !ok || string(got) != tt.want {
				t.Fatalf("NativeJSON = %s (%v), want %s", got, ok, tt.want)
			}
			size, standIn, ok := tt.it.nativeSize()
			if !ok || size != len(got) || !json.Valid(standIn) {
				t.Errorf("nativeSize = %d, %s, want %d and valid JSON", size, standIn, len(got))
			}
		})
	}
}

// A Responses item whose Raw leaves its long text out is sent, and
// measured, as the item with the text in its Raw.
func TestResponsesProjectionPutsLongTextsBack(t *testing.T) {
	long := strings.Repeat("a \"quoted\" line\n\tü ✓\u2028 ", longText/8)
	args := `{"code": "` + strings.Repeat(`print(1)\n`, longText/8) + `"}`
	message := func(text string) json.RawMessage {
		return json.RawMessage(`{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":` + text + `,"annotations":[],"logprobs":[]}]}`)
	}
	reasoning := func(text string) json.RawMessage {
		return json.RawMessage(`{"type":"reasoning","encrypted_content":"opaque","summary":[{"type":"summary_text","text":` + text + `}]}`)
	}
	call := func(arguments string) json.RawMessage {
		return json.RawMessage(`{"type":"function_call","call_id":"c","name":"python","arguments":` + arguments + `}`)
	}
	enc := func(s string) string { return string(appendJSONString(nil, s)) }
	transcript := func(msg, rs, fc json.RawMessage) []Item {
		return []Item{
			{Seq: 1, Kind: KindUser, Text: "hi"},
			{Seq: 2, Kind: KindReasoning, Text: long, Protocol: ProtocolResponses, Raw: rs},
			{Seq: 3, Kind: KindAssistant, Text: long, Protocol: ProtocolResponses, Raw: msg},
			{Seq: 4, Kind: KindToolCall, CallID: "c", ToolName: "python", Arguments: args, Protocol: ProtocolResponses, Raw: fc},
			{Seq: 5, Kind: KindToolOutput, CallID: "c", Text: "done"},
			// Reasoning a provider that stores nothing cannot resolve is not
			// sent, nor counted.
			{Seq: 6, Kind: KindReasoning, Text: long, Protocol: ProtocolResponses,
				Raw: json.RawMessage(`{"type":"reasoning","summary":[{"text":` + refJSON(TextRef(0, len(long))) + `}]}`)},
		}
	}
	whole := transcript(message(enc(long)), reasoning(enc(long)), call(enc(args)))
	elided := transcript(message(refJSON(TextRef(0, len(long)))), reasoning(refJSON(TextRef(0, len(long)))), call(refJSON(ArgumentsRef(0, len(args)))))
	want := Project(whole, ProtocolResponses)
	got := Project(elided, ProtocolResponses)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the projection with references differs from the one with the texts")
	}
	var size int64
	for _, raw := range got {
		size += int64(len(raw)) + 1
	}
	if m := projectedSize(elided, ProtocolResponses); m != size {
		t.Errorf("projectedSize = %d, want %d", m, size)
	}
	if m := projectedSize(whole, ProtocolResponses); m != size {
		t.Errorf("projectedSize of the items with their texts in Raw = %d, want %d", m, size)
	}
	// A reference that does not fit its item: the item is sent from its
	// neutral fields.
	broken := transcript(message(refJSON(TextRef(1, len(long)))), reasoning(enc(long)), call(enc(args)))
	if out := Project(broken, ProtocolResponses); string(out[2]) != string(ResponsesMessage(long, "completed")) {
		t.Errorf("an assistant item with a broken reference projects as %.200s", out[2])
	}
}
