package albedo

import (
	"encoding/json"
	"strings"
	"testing"
)

// argumentCases are python arguments whose code encoding/json decodes
// with every kind of escape, invalid text, or not at all.
var argumentCases = []string{
	`{"code": "print(1)"}`,
	`{"code": ""}`,
	`{"code": "a\"b\\c\/d\b\f\n\r\t"}`,
	`{"code": "\u00e9\u2028\ud83c\udf89 \u0041"}`,
	`{"code": "lone \ud800 high, lone \udc00 low, reversed \udc00\ud800, high then text \ud800x"}`,
	`{"code": "high then escape \ud800\n, high then high \ud800\ud800"}`,
	"{\"code\": \"bad \xff utf8 \xe2\x82 \xf0\x9f and fine \xc3\xa9\"}",
	`{"code": "é✓🎉 <html> & </html>", "timeout_ms": 5}`,
	`{"code": null}`,
	`{"timeout_ms": 5}`,
	`{"code": 5}`,
	`{"code": ["x"]}`,
	`{"code": "unterminated}`,
	`not json`,
	``,
}

// The code a call's arguments hold decodes exactly as encoding/json
// decodes it into a string, and fails where that fails.
func TestDecodeArgumentsIsWhatUnmarshalDecodes(t *testing.T) {
	cases := append(argumentCases, `{"code": "`+strings.Repeat(`x = \"\u00e9\"\n`, 10_000)+`"}`)
	for _, arguments := range cases {
		var want struct {
			Code *string `json:"code"`
		}
		wantErr := json.Unmarshal([]byte(arguments), &want)
		var got pythonArgs
		err := decodeArguments(arguments, &got)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%.80q: error %v, want %v", arguments, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if (got.Code == nil) != (want.Code == nil) || (got.Code != nil && string(*got.Code) != *want.Code) {
			t.Errorf("%.80q: code %v, want %v", arguments, got.Code, want.Code)
		}
		if CallCode(Item{Arguments: arguments}) != callCodeWant(arguments, want.Code) {
			t.Errorf("%.80q: CallCode = %q", arguments, CallCode(Item{Arguments: arguments}))
		}
	}
}

func callCodeWant(arguments string, code *string) string {
	if code != nil {
		return *code
	}
	return arguments
}

func FuzzDecodeArguments(f *testing.F) {
	for _, c := range argumentCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, arguments string) {
		var want struct {
			Code *string `json:"code"`
		}
		wantErr := json.Unmarshal([]byte(arguments), &want)
		var got pythonArgs
		err := decodeArguments(arguments, &got)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, want %v", arguments, err, wantErr)
		}
		if err == nil && ((got.Code == nil) != (want.Code == nil) || (got.Code != nil && string(*got.Code) != *want.Code)) {
			t.Fatalf("%q: code %v, want %v", arguments, got.Code, want.Code)
		}
	})
}
