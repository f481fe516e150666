package openai

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter separates a leading <think>…</think> block, which local
// servers send inside the answer when their reasoning parser is off, from
// the answer that follows. The tags may be cut anywhere between fragments;
// only a block at the very start of the answer (after white space) counts.
type thinkSplitter struct {
	state int
	// buf holds text not yet passed on: a possible opening tag, or the
	// end of the thinking that may be the start of the closing tag.
	buf string
}

// States of a thinkSplitter.
const (
	thinkUndecided = iota
	thinkInside
	thinkAfter
)

// feed passes s on to reasoning or answer as soon as it knows which.
func (t *thinkSplitter) feed(s string, reasoning, answer func(string)) {
	switch t.state {
	case thinkAfter:
		answer(s)
	case thinkUndecided:
		t.buf += s
		lead := strings.TrimLeft(t.buf, " \t\r\n")
		switch {
		case strings.HasPrefix(lead, thinkOpen):
			t.state, t.buf = thinkInside, ""
			t.feed(lead[len(thinkOpen):], reasoning, answer)
		case strings.HasPrefix(thinkOpen, lead):
			// Still a possible opening tag: wait for more.
		default:
			t.state = thinkAfter
			buf := t.buf
			t.buf = ""
			answer(buf)
		}
	case thinkInside:
		t.buf += s
		if i := strings.Index(t.buf, thinkClose); i >= 0 {
			reasoning(t.buf[:i])
			rest := strings.TrimLeft(t.buf[i+len(thinkClose):], " \t\r\n")
			t.state, t.buf = thinkAfter, ""
			answer(rest)
			return
		}
		keep := tagPrefixAtEnd(t.buf, thinkClose)
		reasoning(t.buf[:len(t.buf)-keep])
		t.buf = t.buf[len(t.buf)-keep:]
	}
}

// end passes on what is held when the stream ends: an unclosed block is
// reasoning, an undecided start is answer.
func (t *thinkSplitter) end(reasoning, answer func(string)) {
	buf := t.buf
	t.buf = ""
	switch t.state {
	case thinkInside:
		reasoning(buf)
	case thinkUndecided:
		answer(buf)
	}
	t.state = thinkAfter
}

// tagPrefixAtEnd returns the length of the longest end of s that begins
// tag.
func tagPrefixAtEnd(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
