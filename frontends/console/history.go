package console

// inputHistory remembers sent messages for recall with Up and Down. Its
// zero value is empty.
type inputHistory struct {
	entries []string
	// pos is the entry shown, len(entries) when none is.
	pos int
	// draft is what was typed before browsing started.
	draft string
}

// maxHistory bounds the remembered messages.
const maxHistory = 500

// add remembers a sent message and stops browsing.
func (h *inputHistory) add(text string) {
	if n := len(h.entries); text != "" && (n == 0 || h.entries[n-1] != text) {
		h.entries = append(h.entries, text)
		if len(h.entries) > maxHistory {
			h.entries = h.entries[len(h.entries)-maxHistory:]
		}
	}
	h.pos, h.draft = len(h.entries), ""
}

// browsing reports whether an entry is shown.
func (h *inputHistory) browsing() bool { return h.pos < len(h.entries) }

// prev returns the entry before the one shown; current is the input's text,
// kept as the draft when browsing starts. ok is false at the oldest entry.
func (h *inputHistory) prev(current string) (string, bool) {
	if h.pos == 0 || len(h.entries) == 0 {
		return "", false
	}
	if !h.browsing() {
		h.draft = current
	}
	h.pos--
	return h.entries[h.pos], true
}

// next returns the entry after the one shown, or the draft after the
// newest. ok is false when not browsing.
func (h *inputHistory) next() (string, bool) {
	if !h.browsing() {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.pos], true
}
