package openai

import (
	"bytes"
	"encoding/json"
	"sync"
)

// unstored prepares Responses input items for a request with store set to
// false: the provider keeps nothing then, so an item that still carries the
// id the provider gave it would make the provider look that id up and
// refuse the whole request. Such ids are left out; the items are otherwise
// sent exactly as they were received (reasoning keeps its encrypted
// content, calls their call_id). It returns, by index, the items that
// change, as the parts of the item around its id (nothing is copied, so a
// 50 MiB answer costs no second copy per request); the others are sent as
// they are.
func unstored(items []json.RawMessage) map[int]edit {
	var changed map[int]edit
	for i, raw := range items {
		if !bytes.Contains(raw, []byte(`"id"`)) {
			continue
		}
		if e, ok := withoutTopLevelID(raw); ok {
			if changed == nil {
				changed = make(map[int]edit)
			}
			changed[i] = e
		}
	}
	return changed
}

// edit is an item written as head then rest: the item with a member cut
// out of it.
type edit struct{ head, rest []byte }

// bytes returns the edited item in one buffer.
func (e edit) bytes() []byte { return append(append([]byte(nil), e.head...), e.rest...) }

// withoutTopLevelID returns the JSON object raw without its top-level
// "id" member, scanning it once instead of decoding it, and false when it
// has none or cannot be read as an object.
func withoutTopLevelID(raw []byte) (edit, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return edit{}, false
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return edit{}, false
		}
		if raw[i] == ',' {
			i++
			continue
		}
		if raw[i] != '"' {
			return edit{}, false
		}
		start := i
		keyEnd := skipString(raw, i)
		colon := skipSpace(raw, keyEnd)
		if colon >= len(raw) || raw[colon] != ':' {
			return edit{}, false
		}
		end := skipValue(raw, skipSpace(raw, colon+1))
		if end < 0 {
			return edit{}, false
		}
		if string(raw[start:keyEnd]) == `"id"` {
			return cutMember(raw, start, end), true
		}
		i = end
	}
}

// cutMember removes the member raw[start:end] and one comma beside it.
func cutMember(raw []byte, start, end int) edit {
	if next := skipSpace(raw, end); next < len(raw) && raw[next] == ',' {
		end = next + 1
	} else {
		prev := start - 1
		for prev >= 0 && isSpace(raw[prev]) {
			prev--
		}
		if prev >= 0 && raw[prev] == ',' {
			start = prev
		}
	}
	return edit{head: raw[:start:start], rest: raw[end:]}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && isSpace(raw[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at i.
func skipString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(raw)
}

// skipValue returns the index just past the value that starts at i, or -1
// when the input ends inside it.
func skipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return -1
	}
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for ; i < len(raw); i++ {
			switch raw[i] {
			case '"':
				i = skipString(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default:
		for i < len(raw) && raw[i] != ',' && raw[i] != '}' && raw[i] != ']' && !isSpace(raw[i]) {
			i++
		}
		return i
	}
}

// strippedItems remembers what unstored made of the input items it saw,
// by the address of their first byte and their length: the service hands
// a session's requests the same items again and again (it keeps what it
// projected), so each is scanned once rather than at every request.
// Holding the address keeps the item in memory, so it cannot be reused by
// another item while remembered; items are never changed once handed out
// (see albedo.ModelRequest). The memory held is bounded: items over
// strippedMaxItem are not remembered, and past strippedBudget bytes
// everything is forgotten. Its zero value is empty and ready.
type strippedItems struct {
	mu    sync.Mutex
	seen  map[*byte]strippedItem
	bytes int
}

// strippedItem is what unstored made of one item: cut, when changed, or
// the item as it is.
type strippedItem struct {
	n       int
	cut     edit
	changed bool
}

const (
	strippedMaxItem = 64 << 10
	strippedBudget  = 8 << 20
)

// changes is unstored(items), from memory for the items seen before.
func (m *strippedItems) changes(items []json.RawMessage) map[int]edit {
	var changed map[int]edit
	change := func(i int, e edit) {
		if changed == nil {
			changed = make(map[int]edit)
		}
		changed[i] = e
	}
	known := make([]bool, len(items))
	m.mu.Lock()
	for i, raw := range items {
		if len(raw) == 0 {
			known[i] = true
			continue
		}
		if s, ok := m.seen[&raw[0]]; ok && s.n == len(raw) {
			known[i] = true
			if s.changed {
				change(i, s.cut)
			}
		}
	}
	m.mu.Unlock()
	type fresh struct {
		i int
		s strippedItem
	}
	var learnt []fresh
	for i, raw := range items {
		if known[i] {
			continue
		}
		s := strippedItem{n: len(raw)}
		if bytes.Contains(raw, []byte(`"id"`)) {
			if s.cut, s.changed = withoutTopLevelID(raw); s.changed {
				change(i, s.cut)
			}
		}
		if len(raw) <= strippedMaxItem {
			learnt = append(learnt, fresh{i, s})
		}
	}
	if len(learnt) == 0 {
		return changed
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range learnt {
		raw := items[f.i]
		if m.seen == nil || m.bytes > strippedBudget {
			m.seen, m.bytes = make(map[*byte]strippedItem), 0
		}
		m.seen[&raw[0]] = f.s
		m.bytes += len(raw) + 64
	}
	return changed
}
