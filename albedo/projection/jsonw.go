package projection

import (
	"encoding/json"
	"unicode/utf8"
)

// jsonObject builds a JSON object by appending to a byte slice. Projection
// builds thousands of small messages per request; this keeps that cheap.
type jsonObject struct{ b []byte }

func newObject() *jsonObject { return &jsonObject{b: append(make([]byte, 0, 128), '{')} }

func (o *jsonObject) key(k string) {
	if len(o.b) > 1 {
		o.b = append(o.b, ',')
	}
	o.b = appendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

// str adds a string field.
func (o *jsonObject) str(k, v string) *jsonObject {
	o.key(k)
	o.b = appendJSONString(o.b, v)
	return o
}

// raw adds a field whose value is already JSON.
func (o *jsonObject) raw(k string, v []byte) *jsonObject {
	o.key(k)
	o.b = append(o.b, v...)
	return o
}

// done closes the object and returns it.
func (o *jsonObject) done() json.RawMessage { return append(o.b, '}') }

// jsonArray joins JSON values into an array.
func jsonArray(values ...[]byte) []byte {
	n := 2
	for _, v := range values {
		n += len(v) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does; HTML characters are left as they are.
func appendJSONString(b []byte, s string) []byte { return appendString(b, s, false) }

// appendMarshaledString appends s exactly as encoding/json's Marshal
// writes it: as appendJSONString, but with <, > and & escaped and \b, \f
// written short.
func appendMarshaledString(b []byte, s string) []byte { return appendString(b, s, true) }

// plainASCII reports whether the ASCII byte c is written as it is.
func plainASCII(c byte, marshaled bool) bool {
	return c >= 0x20 && c != '"' && c != '\\' && (!marshaled || (c != '<' && c != '>' && c != '&'))
}

func appendString(b []byte, s string, marshaled bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainASCII(c, marshaled) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case marshaled && c == '\b':
				b = append(b, '\\', 'b')
			case marshaled && c == '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
