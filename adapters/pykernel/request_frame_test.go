package pykernel

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// writes records each Write it gets.
type writes struct {
	bytes.Buffer
	largest int
}

func (w *writes) Write(p []byte) (int, error) {
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

// A request reads back as the request encoding/json would have sent,
// whatever the code holds, and long code is written a piece at a time,
// never in one buffer of its size.
func TestWriteRequestCarriesTheRequest(t *testing.T) {
	codes := []struct{ name, code string }{
		{"none", ""},
		{"plain", "print(1)"},
		{"quotes, backslashes and line ends", "s = \"a\\\\b\"\r\nprint(s)\t# done\n"},
		{"control characters", "\x00\x01\x1f\x7f\b\f"},
		{"html characters", "if a < b and c > d: print('&')"},
		{"unicode and separators", "print('ünïcödé ✓ 🎉 \u2028 \u2029')"},
		{"invalid UTF-8", "print('\xff') \xe2\x82 \xf0\x9f"},
		{"long", strings.Repeat("x = '\"quoted\" ✓'\n", 200_000)},
		{"long, invalid UTF-8 across pieces", strings.Repeat("\xe2\x82\xff", 300_000)},
	}
	for _, tc := range codes {
		t.Run(tc.name, func(t *testing.T) {
			req := request{Type: "run", ID: 7, Code: tc.code, Cwd: "/w", Marker: "m", Limit: 3, HostCalls: json.RawMessage(`[{"name":"vent"}]`)}
			var w writes
			if err := writeRequest(&w, req); err != nil {
				t.Fatal(err)
			}
			// A piece of code encodes to at most six bytes a byte
			// (\ufffd for a byte of invalid UTF-8).
			if piece := 6*codeFrameBuffer + 1024; w.largest > piece {
				t.Errorf("a write of %d bytes, more than a piece (%d)", w.largest, piece)
			}
			body, err := readFrame(&w.Buffer)
			if err != nil {
				t.Fatal(err)
			}
			if w.Len() != 0 {
				t.Errorf("%d bytes after the frame", w.Len())
			}
			want, _ := json.Marshal(req)
			var got, expected map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("frame body %.200q: %v", body, err)
			}
			_ = json.Unmarshal(want, &expected)
			if !reflect.DeepEqual(got, expected) {
				t.Errorf("frame body decodes to %.200v, want %.200v", got, expected)
			}
		})
	}
}

// Pieces of code end on a character, add up to the code, and an empty
// code is one empty piece.
func TestCodePieces(t *testing.T) {
	tests := []struct {
		code string
		n    int
		want []string
	}{
		{"", 4, []string{""}},
		{"abcdefgh", 4, []string{"abcd", "efgh"}},
		{"abcé", 4, []string{"abc", "é"}},
		{"ab✓cd", 4, []string{"ab", "✓c", "d"}},
		{"\x82\x82\x82\x82\x82", 2, []string{"\x82\x82", "\x82\x82", "\x82"}},
	}
	for _, tt := range tests {
		var got []string
		for p := range codePieces(tt.code, tt.n) {
			if p.first != (len(got) == 0) {
				t.Errorf("%q: piece %d first = %v", tt.code, len(got), p.first)
			}
			got = append(got, p.text)
			if p.last != (len(got) == len(tt.want)) {
				t.Errorf("%q: piece %d last = %v", tt.code, len(got)-1, p.last)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("codePieces(%q, %d) = %q, want %q", tt.code, tt.n, got, tt.want)
		}
	}
}

func TestCodeLenIsTheEncodedLength(t *testing.T) {
	for _, s := range []string{"", "a\"b\\c\n\r\t\x00\x7f", "é✓🎉\u2028", "\xff\xe2\x82 \xf0\x9f"} {
		if got, want := codeLen(s), len(appendCode(nil, s, true, true)); got != want {
			t.Errorf("codeLen(%q) = %d, want %d", s, got, want)
		}
	}
}
