package projection

import "testing"

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
