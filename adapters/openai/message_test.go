package openai

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCompleteMessageAddsWhatTheSchemaRequires(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bare message",
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}`,
			`{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi","annotations":[],"logprobs":[]}]}`},
		{"refusal parts untouched",
			`{"type":"message","role":"assistant","status":"incomplete","content":[{"type":"refusal","refusal":"no"}]}`,
			`{"type":"message","role":"assistant","status":"incomplete","content":[{"type":"refusal","refusal":"no"}]}`},
		{"kept as sent",
			`{"id":"m","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi","annotations":[{"type":"url_citation"}],"logprobs":[]}]}`,
			`{"id":"m","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi","annotations":[{"type":"url_citation"}],"logprobs":[]}]}`},
	}
	for _, tt := range tests {
		var got, want any
		if err := json.Unmarshal(completeMessage(json.RawMessage(tt.in)), &got); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(tt.want), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s", tt.name, completeMessage(json.RawMessage(tt.in)))
		}
	}
}
