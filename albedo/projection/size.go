package projection

import (
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

// longText is the size of a text past which a buffer for its JSON is
// sized to the encoding first (jsonStringLen) rather than grown.
const longText = 64 << 10

// projectedSize returns the bytes Project(items, protocol) makes, each
// message followed by one separator byte.
func projectedSize(items []albedo.Item, protocol albedo.Protocol) int64 {
	var size int64
	for _, raw := range Project(items, protocol) {
		size += int64(len(raw)) + 1
	}
	return size
}

// jsonStringLen returns len(appendJSONString(nil, s)) without building it.
func jsonStringLen(s string) int { return stringLen(s, false) }

// marshaledStringLen returns len(appendMarshaledString(nil, s)) without
// building it.
func marshaledStringLen(s string) int { return stringLen(s, true) }

func stringLen(s string, marshaled bool) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case plainASCII(c, marshaled):
				n++
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || (marshaled && (c == '\b' || c == '\f')):
				n += 2
			default:
				n += len(`\u0000`)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += len(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			n += len(`\u2028`)
		default:
			n += size
		}
		i += size
	}
	return n
}
