package openai

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// collector is a stringSink that keeps what it is given.
type collector struct {
	strs   *[]string
	b      []byte
	prefix string
}

func (c *collector) write(p []byte) { c.b = append(c.b, p...) }
func (c *collector) end() string {
	*c.strs = append(*c.strs, string(c.b))
	return strconv.Quote(c.prefix + strconv.Itoa(len(*c.strs)-1))
}

// walkAndRestore walks in with long, then puts each long string back (as
// encoding/json encodes it), returning the copy, the restored text and
// the long strings.
func walkAndRestore(t testing.TB, in []byte, long int, oneByte bool) (copied, restored []byte, strs []string, err error) {
	prefix := "long-" + rand.Text() + "-"
	r := iotestReader(in, oneByte)
	copied, err = walkLongJSON(r, long, func() stringSink { return &collector{strs: &strs, prefix: prefix} })
	if err != nil {
		return nil, nil, nil, err
	}
	restored = copied
	for i, s := range strs {
		enc, _ := json.Marshal(s)
		restored = bytes.Replace(restored, []byte(strconv.Quote(prefix+strconv.Itoa(i))), enc, 1)
	}
	return copied, restored, strs, nil
}

func iotestReader(in []byte, oneByte bool) interface{ Read([]byte) (int, error) } {
	if oneByte {
		return iotest.OneByteReader(bytes.NewReader(in))
	}
	return bytes.NewReader(in)
}

func TestWalkLongJSONDecodesLikeEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		// long are the long strings, decoded.
		long []string
	}{
		{"short strings are copied", `{"a": "bc", "d": ["e", 1, true, null]}`, nil},
		{"a long value", `{"key": "0123456789"}`, []string{"0123456789"}},
		{"member names are never long", `{"0123456789": "x"}`, nil},
		{"names after commas and in nested objects", `{"a":1,"0123456789":{"0123456789abc":[{"0123456789z":2}]}}`, nil},
		{"values in arrays", `["0123456789", {"k": ["abcdefghij"]}]`, []string{"0123456789", "abcdefghij"}},
		{"escapes", `["\"\\\/\b\f\n\r\t are escapes"]`, []string{"\"\\/\b\f\n\r\t are escapes"}},
		{"unicode escapes", `["\u00e9\u2028\uD83D\uDE00 and \u0041"]`, []string{"é\u2028😀 and A"}},
		{"lone surrogates", `["\uD83D alone, \uDE00 alone, \uD83D\u0041 unpaired"]`, []string{"\uFFFD alone, \uFFFD alone, \uFFFDA unpaired"}},
		{"invalid UTF-8", "[\"bad \xff\xfe bytes \xe2\x82 cut\"]", []string{"bad \uFFFD\uFFFD bytes \uFFFD\uFFFD cut"}},
		{"multibyte characters", `["é✓😀 long enough"]`, []string{"é✓😀 long enough"}},
		{"a string just at the limit stays", `["012345678"]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, oneByte := range []bool{false, true} {
				copied, restored, strs, err := walkAndRestore(t, []byte(tt.in), 10, oneByte)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(strs, tt.long) {
					t.Fatalf("long strings %q, want %q", strs, tt.long)
				}
				if len(tt.long) == 0 && string(copied) != tt.in {
					t.Fatalf("copied %s, want %s unchanged", copied, tt.in)
				}
				var want, got any
				if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(restored, &got); err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("restored %s decodes to %v (%v), want %v", restored, got, err, want)
				}
			}
		})
	}
}

func TestWalkLongJSONRejectsBadLongStrings(t *testing.T) {
	for _, in := range []string{
		"[\"a control \x01 character\"]",
		`["a bad \q escape here"]`,
		`["a bad \u12G4 escape here"]`,
		`["a string that never ends`,
		`["an escape that never ends \u00`,
	} {
		if _, _, _, err := walkAndRestore(t, []byte(in), 4, false); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func FuzzWalkLongJSON(f *testing.F) {
	for _, s := range []string{`{"a":"0123456789\u00e9\ud83d\ude00","b":[1,"xyz"]}`, "[\"\xff\xfe\\n\"]", `"top"`, `{"k":{"n":"v"}}`} {
		f.Add([]byte(s), uint8(3))
	}
	for _, s := range sseSeeds {
		if i := strings.Index(s, "{"); i >= 0 {
			f.Add([]byte(s[i:]), uint8(8))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, long uint8) {
		copied, restored, _, err := walkAndRestore(t, in, int(long%32), long&1 == 1)
		if !json.Valid(in) {
			if err == nil && json.Valid(restored) {
				t.Fatalf("invalid %q walks to valid %q", in, restored)
			}
			return
		}
		if err != nil {
			t.Fatalf("valid %q: %v", in, err)
		}
		var want, got any
		_ = json.Unmarshal(in, &want)
		if err := json.Unmarshal(restored, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q walks to %q, restored %q: %v, want %v (%v)", in, copied, restored, got, want, err)
		}
	})
}
