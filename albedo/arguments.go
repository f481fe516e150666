package albedo

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// decodeArguments decodes a tool call's JSON arguments into v. It reads
// them in place, through a read-only view of the string's bytes, rather
// than through a []byte copy: a call of 50 MiB arguments (a cell writing
// a large file) would otherwise be held once more for as long as the
// decoding takes. json.Unmarshal never writes to its input, and what it
// decodes (strings, json.RawMessage) it copies out, so v keeps no view.
func decodeArguments(arguments string, v any) error {
	return json.Unmarshal(unsafe.Slice(unsafe.StringData(arguments), len(arguments)), v)
}

// longString is a JSON string decoded into one string of its size:
// encoding/json unquotes a string with escapes into a buffer and then
// copies that into the string, so the code of a 50 MiB cell would be held
// twice while it is decoded. It decodes exactly as encoding/json does
// (invalid UTF-8 and lone surrogates become U+FFFD).
type longString string

// UnmarshalJSON decodes a JSON string; anything else is an error, as it
// is for a string field.
func (s *longString) UnmarshalJSON(data []byte) error {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return errors.New("not a JSON string")
	}
	*s = longString(unquote(data[1 : len(data)-1]))
	return nil
}

// unquote decodes the body of a JSON string that json.Unmarshal has
// already checked to be valid.
func unquote(in []byte) string {
	var out strings.Builder
	out.Grow(len(in))
	start := 0
	for i := 0; i < len(in); {
		c := in[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size == 1 {
				out.Write(in[start:i])
				out.WriteRune(unicode.ReplacementChar)
				start = i + 1
			}
			i += size
			continue
		}
		if c != '\\' || i+1 >= len(in) {
			i++
			continue
		}
		out.Write(in[start:i])
		switch e := in[i+1]; e {
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r := hex4(in[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if len(in) >= i+2 && in[i] == '\\' && in[i+1] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(in[i+2:])); pair != unicode.ReplacementChar {
						r = pair
						i += 6
						out.WriteRune(r)
						start = i
						continue
					}
				}
				r = unicode.ReplacementChar
			}
			out.WriteRune(r)
			start = i
			continue
		default: // '"', '\\', '/'
			out.WriteByte(e)
		}
		i += 2
		start = i
	}
	out.Write(in[start:])
	return out.String()
}

// hex4 reads the four hex digits at the start of b as a rune, -1 when
// they are not there.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	if err != nil {
		return -1
	}
	return rune(n)
}
