package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"testing/iotest"
)

func TestRequestBodyLaysOutItsPieces(t *testing.T) {
	type envelope struct {
		Stream bool   `json:"stream"`
		Key    string `json:"key,omitempty"`
	}
	tests := []struct {
		name     string
		lead     []byte
		items    []json.RawMessage
		envelope any
		want     string
	}{
		{"no items", nil, nil, envelope{Stream: true}, `{"model":"m","input":[],"stream":true}`},
		{"one item", nil, []json.RawMessage{json.RawMessage(`{"a":1}`)}, envelope{}, `{"model":"m","input":[{"a":1}],"stream":false}`},
		{"items kept byte for byte", nil, []json.RawMessage{json.RawMessage(`{"a": "<b>"}`), json.RawMessage(`[1, 2]`), json.RawMessage(`"x"`)},
			envelope{Key: "k"}, `{"model":"m","input":[{"a": "<b>"},[1, 2],"x"],"stream":false,"key":"k"}`},
		{"an empty item is null", nil, []json.RawMessage{nil, json.RawMessage(`1`)}, envelope{}, `{"model":"m","input":[null,1],"stream":false}`},
		{"no other members", nil, []json.RawMessage{json.RawMessage(`1`)}, struct{}{}, `{"model":"m","input":[1]}`},
		{"a lead value, then items", []byte(`0`), []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`2`)}, envelope{}, `{"model":"m","input":[0,1,2],"stream":false}`},
		{"a lead value alone", []byte(`{"role":"system"}`), nil, envelope{}, `{"model":"m","input":[{"role":"system"}],"stream":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := newBody("m", "input", tt.lead, tt.items, tt.envelope)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(b.Bytes()); got != tt.want {
				t.Errorf("body = %s\nwant   %s", got, tt.want)
			}
			if b.Len() != int64(len(tt.want)) {
				t.Errorf("Len = %d, want %d", b.Len(), len(tt.want))
			}
			// Read a byte at a time, and again from a fresh reader: the
			// same bytes each time.
			for range 2 {
				got, err := io.ReadAll(iotest.OneByteReader(b.reader()))
				if err != nil || string(got) != tt.want {
					t.Errorf("read byte by byte = %s, %v", got, err)
				}
			}
			if err := iotest.TestReader(b.reader(), []byte(tt.want)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRequestBodyOfALongTranscriptIsValidJSON(t *testing.T) {
	items := make([]json.RawMessage, 5000)
	for i := range items {
		items[i] = json.RawMessage(`{"role":"tool","content":"` + string(bytes.Repeat([]byte{'x'}, i%700)) + `"}`)
	}
	b, err := newBody("model", "messages", nil, items, struct {
		Stream bool `json:"stream"`
	}{true})
	if err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Model    string            `json:"model"`
		Messages []json.RawMessage `json:"messages"`
		Stream   bool              `json:"stream"`
	}
	whole := b.Bytes()
	if err := json.Unmarshal(whole, &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded.Model != "model" || len(decoded.Messages) != len(items) || !decoded.Stream || int64(len(whole)) != b.Len() {
		t.Fatalf("decoded %q, %d messages, stream %v, %d bytes of %d", decoded.Model, len(decoded.Messages), decoded.Stream, len(whole), b.Len())
	}
	for i := range items {
		if !bytes.Equal(decoded.Messages[i], items[i]) {
			t.Fatalf("message %d = %s, want %s", i, decoded.Messages[i], items[i])
		}
	}
}
