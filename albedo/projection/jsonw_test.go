package projection

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendJSONStringRoundTrips(t *testing.T) {
	tests := []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\x00\x01\x1f", "<html> & </html>", "ünïcödé ✓ 🎉", "line\u2028sep\u2029", "bad \xff utf8"}
	for _, s := range tests {
		got := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, got, err)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if back != want {
			t.Errorf("%q round-trips to %q, want %q", s, back, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\n\t", "\xff\xfe", "é\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("invalid JSON %s: %v", got, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q round-trips to %q", s, back)
		}
	})
}

func TestJSONObjectBuildsValidObjects(t *testing.T) {
	got := newObject().str("role", "tool").raw("n", []byte("3")).raw("list", jsonArray([]byte("1"), []byte(`"x"`))).done()
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if m["role"] != "tool" || m["n"] != 3.0 || len(m["list"].([]any)) != 2 {
		t.Errorf("decoded %v", m)
	}
	if string(jsonArray()) != "[]" {
		t.Errorf("empty array = %s", jsonArray())
	}
}

// marshaledStrings are strings where encoding/json's Marshal differs from
// appendJSONString, and the cases both share.
var marshaledStrings = []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\b\f", "\x00\x01\x1f\x7f", "<html> & </html>", "ünïcödé ✓ 🎉", "line\u2028sep\u2029", "bad \xff utf8 \xe2\x82", "\xf0\x9f"}

func TestAppendMarshaledStringIsWhatMarshalWrites(t *testing.T) {
	for _, s := range marshaledStrings {
		want, _ := json.Marshal(s)
		if got := appendMarshaledString(nil, s); string(got) != string(want) {
			t.Errorf("appendMarshaledString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendMarshaledString(f *testing.F) {
	for _, s := range marshaledStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendMarshaledString(nil, s); string(got) != string(want) {
			t.Fatalf("appendMarshaledString(%q) = %s, want %s", s, got, want)
		}
	})
}
