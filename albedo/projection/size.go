package projection

import (
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

// longText is the size of a text past which measuring a projection counts
// its encoded size instead of encoding it.
const longText = 64 << 10

// projectedSize returns the bytes Project(items, protocol) would make,
// each message followed by one separator byte. A long text is not
// encoded: it is counted by jsonStringLen and projected as a one-byte
// stand-in, so that measuring a 50 MiB answer does not build its JSON.
// Where the projection joins a long text to another (notes, merged
// reasoning) the count may differ from the real encoding by the few bytes
// of an escape at the seam; it feeds an estimate. An item sent as its Raw
// counts its Raw.
func projectedSize(items []albedo.Item, protocol albedo.Protocol) int64 {
	var extra int64
	var light []albedo.Item
	for i, it := range items {
		if protocol == albedo.ProtocolResponses {
			if native, _ := nativeResponses(it); native {
				continue // sent as its Raw
			}
		}
		if len(it.Text) <= longText {
			continue
		}
		if light == nil {
			light = append([]albedo.Item(nil), items...)
		}
		light[i].Text = "x"
		extra += int64(jsonStringLen(it.Text)) - int64(len(`"x"`))
	}
	if light == nil {
		light = items
	}
	var size int64
	for _, raw := range Project(light, protocol) {
		size += int64(len(raw)) + 1
	}
	return size + extra
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
