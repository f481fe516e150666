package albedo

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// A long text is kept once per item. Where an item's Raw would repeat a
// long string that the item already holds in Text or Arguments (a 50 MiB
// answer, say), the Raw holds a reference instead: the JSON string
// "\u0000albedo:text:OFF:LEN" (or "\u0000albedo:arguments:OFF:LEN"), which
// stands for the LEN bytes of Text (or Arguments) from byte OFF. The
// leading NUL keeps it apart from any text a model writes. NativeJSON puts
// the strings back; the projection sends that, so a provider gets back the
// item it sent (the same JSON value; a long string in albedo's encoding
// of it, which may escape other characters than the provider did).

// refPrefix begins every reference, as a Go string and as JSON text.
const (
	refPrefix     = "\x00albedo:"
	refPrefixJSON = `"\u0000albedo:`
)

// TextRef returns the string that stands in an item's Raw for
// Text[off:off+n].
func TextRef(off, n int) string { return ref("text", off, n) }

// ArgumentsRef returns the string that stands in an item's Raw for
// Arguments[off:off+n].
func ArgumentsRef(off, n int) string { return ref("arguments", off, n) }

func ref(field string, off, n int) string {
	return refPrefix + field + ":" + strconv.Itoa(off) + ":" + strconv.Itoa(n)
}

// rawRef is one reference found in a Raw: the JSON string raw[start:end]
// stands for text.
type rawRef struct {
	start, end int
	text       string
}

// rawRefs returns the references in it.Raw, in order, and false when one
// of them does not name a part of the item's Text or Arguments.
func rawRefs(it Item) ([]rawRef, bool) {
	raw := it.Raw
	if !bytes.Contains(raw, []byte(refPrefixJSON)) {
		return nil, true
	}
	var refs []rawRef
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return nil, false
		}
		if bytes.HasPrefix(raw[i:end], []byte(refPrefixJSON)) {
			text, ok := refText(it, string(raw[i+len(refPrefixJSON):end-1]))
			if !ok {
				return nil, false
			}
			refs = append(refs, rawRef{start: i, end: end, text: text})
		}
		i = end - 1
	}
	return refs, true
}

// stringEnd returns the index after the JSON string that starts at
// raw[start], or -1 when it does not end.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// refText returns the part of it that a reference's body ("text:OFF:LEN")
// names.
func refText(it Item, body string) (string, bool) {
	field, rest, _ := strings.Cut(body, ":")
	offText, lenText, _ := strings.Cut(rest, ":")
	off, err1 := strconv.Atoi(offText)
	n, err2 := strconv.Atoi(lenText)
	var s string
	switch field {
	case "text":
		s = it.Text
	case "arguments":
		s = it.Arguments
	default:
		return "", false
	}
	if err1 != nil || err2 != nil || off < 0 || n < 0 || off > len(s) || n > len(s)-off {
		return "", false
	}
	return s[off : off+n], true
}

// NativeJSON returns the item's Raw with the long strings it leaves out
// put back (see TextRef), ready to send to a provider of its protocol. It
// reports false when a reference does not fit the item, which then has
// no native form.
func (it Item) NativeJSON() (json.RawMessage, bool) {
	refs, ok := rawRefs(it)
	if !ok || len(refs) == 0 {
		return it.Raw, ok
	}
	out := make([]byte, 0, nativeLen(it.Raw, refs))
	last := 0
	for _, r := range refs {
		out = append(out, it.Raw[last:r.start]...)
		out = appendJSONString(out, r.text)
		last = r.end
	}
	return append(out, it.Raw[last:]...), true
}

// nativeSize returns len(NativeJSON()) without building it, and a Raw of
// the same shape that stands in for it where only sizes matter: each
// reference replaced by an empty string.
func (it Item) nativeSize() (int, json.RawMessage, bool) {
	refs, ok := rawRefs(it)
	if !ok || len(refs) == 0 {
		return len(it.Raw), it.Raw, ok
	}
	standIn := make([]byte, 0, len(it.Raw))
	last := 0
	for _, r := range refs {
		standIn = append(append(standIn, it.Raw[last:r.start]...), `""`...)
		last = r.end
	}
	return nativeLen(it.Raw, refs), append(standIn, it.Raw[last:]...), true
}

// nativeLen is the length of raw with each of its references replaced by
// the JSON string of its text.
func nativeLen(raw json.RawMessage, refs []rawRef) int {
	size := len(raw)
	for _, r := range refs {
		size += jsonStringLen(r.text) - (r.end - r.start)
	}
	return size
}
