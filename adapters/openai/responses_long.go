package openai

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// A Responses stream sends a text as deltas, then the whole of it again in
// each event that finishes it: response.output_text.done,
// response.content_part.done, response.output_item.done and
// response.completed (function-call arguments and reasoning likewise). For
// a 50 MiB answer, each of those is a 50 MiB event. So:
//
//   - a data line longer than longEventData is not collected: the event's
//     data is read from the stream as it arrives (sseBody);
//   - an event longer than longStringSize is copied without its long
//     strings (walkLongJSON): each string longer than longStringSize is
//     decoded a piece at a time and compared with every text this reply
//     already holds (the texts that streamed as deltas, and the long
//     strings kept before). A string equal to one of them is not kept
//     again; one that is new (LM Studio sends function-call arguments only
//     in the finishing events) is kept, in a textBuffer, once. Either way
//     the event is then decoded with the string standing in for it, and
//     the item ends up with exactly the final text the provider sent: the
//     final output stays authoritative. When that text differs from what
//     streamed for the item, a warning is logged and the final text is
//     kept (held twice until the reply ends).
//   - an item's Raw leaves out the long strings its Text or Arguments hold,
//     with albedo.TextRef / albedo.ArgumentsRef in their place; the
//     projection puts them back when the item is sent.
const (
	longEventData  = 1 << 20
	longStringSize = 64 << 10
)

// longValue is a long string of an event: the first n bytes of buf.
type longValue struct {
	buf *textBuffer
	n   int
	// owned says buf was made for this string; streamed that it is a text
	// that streamed as deltas.
	owned, streamed bool
}

// placeholderPrefix begins the strings that stand in for long strings in
// a decoded event; the decoder's nonce follows, then the index in longs.
const placeholderPrefix = "\x00albedo-long:"

// newNonce returns the nonce that sets a decoder's placeholders apart
// from any string a provider sends.
func newNonce() string { return rand.Text()[:12] }

// streamAbove is the length of a data line past which the decoder reads
// the event as it arrives.
func (d *responsesDecoder) streamAbove() int { return d.longEvent }

// reduce returns the JSON of an event with its long strings standing in
// (see walkLongJSON); ev's type is set once a streamed event was read. A
// failure to read the stream, or its end inside the event, is returned
// as it is.
func (d *responsesDecoder) reduce(ev *sseEvent) ([]byte, error) {
	var r io.Reader
	switch {
	case ev.body != nil:
		r = ev.body
	case len(ev.Data) > d.longString:
		r = strings.NewReader(ev.Data)
	default:
		return []byte(ev.Data), nil
	}
	out, err := walkLongJSON(r, d.longString, d.newMatcher)
	if ev.body != nil && err == nil {
		ev.Type = ev.body.typ
	}
	var syntax *syntaxError
	switch {
	case err == nil:
		return out, nil
	case errors.As(err, &syntax):
		return nil, failure(d.ep, nil, "sent a malformed event: %v", err)
	default:
		return nil, err
	}
}

// placeholder returns the Go string and the JSON literal that stand for
// longs[i].
func (d *responsesDecoder) placeholder(i int) (string, string) {
	s := placeholderPrefix + d.nonce + ":" + strconv.Itoa(i)
	return s, string(mustMarshal(s))
}

// long returns the long string s stands for, if it is a placeholder.
func (d *responsesDecoder) long(s string) (longValue, bool) {
	rest, ok := strings.CutPrefix(s, placeholderPrefix)
	if !ok {
		return longValue{}, false
	}
	rest, ok = strings.CutPrefix(rest, d.nonce+":")
	if !ok {
		return longValue{}, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || i >= len(d.longs) || d.longs[i].buf == nil {
		return longValue{}, false
	}
	return d.longs[i], true
}

// text returns s, or the long string it stands for. It ends the texts of
// the reply (see textBuffer.String): it is for building the reply.
func (d *responsesDecoder) text(s string) string {
	if v, ok := d.long(s); ok {
		return v.buf.String()[:v.n]
	}
	return s
}

// copyOf returns s, or a copy of the long string it stands for, leaving
// the texts open to more deltas.
func (d *responsesDecoder) copyOf(s string) string {
	if v, ok := d.long(s); ok {
		return v.buf.prefix(v.n)
	}
	return s
}

// release drops the long strings kept from longs[mark] on: those of an
// event whose strings the decoder does not keep.
func (d *responsesDecoder) release(mark int) {
	for i := mark; i < len(d.longs); i++ {
		if d.longs[i].owned {
			d.longs[i].buf.release()
		}
		d.longs[i].buf = nil
	}
}

// newMatcher starts following one long string of an event.
func (d *responsesDecoder) newMatcher() stringSink {
	m := &repeatMatcher{d: d}
	for _, b := range d.streamedTexts() {
		if b.Len() > 0 {
			m.live = append(m.live, b)
		}
	}
	for _, v := range d.longs {
		if v.owned && v.buf != nil {
			m.live = append(m.live, v.buf)
		}
	}
	return m
}

// streamedTexts are the texts that streamed as deltas.
func (d *responsesDecoder) streamedTexts() []*textBuffer {
	var out []*textBuffer
	for _, p := range d.partials {
		out = append(out, &p.text, &p.arguments)
	}
	return out
}

// repeatMatcher is the stringSink of one long string: it compares the
// string, as it is decoded, with the texts the reply holds, and keeps it
// only from the moment none of them holds it.
type repeatMatcher struct {
	d *responsesDecoder
	// live are the texts that hold the string's bytes so far.
	live []*textBuffer
	off  int
	// kept holds the string once no text does.
	kept *textBuffer
}

func (m *repeatMatcher) write(p []byte) {
	if len(p) == 0 {
		return
	}
	if m.kept == nil {
		var lost *textBuffer
		live := m.live[:0]
		for _, c := range m.live {
			if c.equalAt(m.off, p) {
				live = append(live, c)
			} else {
				lost = c
			}
		}
		m.live = live
		if len(live) == 0 {
			// The string parts from every text here: keep it, from the
			// start they shared.
			m.kept = &textBuffer{}
			if lost != nil {
				lost.copyTo(m.kept, m.off)
			}
		}
	}
	if m.kept != nil {
		m.kept.Write(p)
	}
	m.off += len(p)
}

func (m *repeatMatcher) end() string {
	v := longValue{n: m.off}
	switch {
	case m.kept != nil:
		v.buf, v.owned = m.kept, true
	default:
		for _, c := range m.live {
			if c.Len() == m.off {
				v.buf = c
				break
			}
		}
		if v.buf == nil && len(m.live) > 0 {
			v.buf = m.live[0] // its first n bytes
		}
		if v.buf == nil {
			v.buf, v.owned = &textBuffer{}, true // an empty string
		}
		v.streamed = slices.Contains(m.d.streamedTexts(), v.buf)
	}
	m.d.longs = append(m.d.longs, v)
	_, literal := m.d.placeholder(len(m.d.longs) - 1)
	return literal
}

// joinText joins the parts of an item's text with sep, resolving the
// long ones; for each, refs gets the reference (made by ref) to its place
// in the result, which stands in for it in the item's Raw.
func (d *responsesDecoder) joinText(parts []string, sep string, refs map[string]string, ref func(off, n int) string) string {
	texts := make([]string, len(parts))
	off := 0
	for i, p := range parts {
		if i > 0 {
			off += len(sep)
		}
		texts[i] = d.text(p)
		if _, ok := d.long(p); ok {
			refs[p] = ref(off, len(texts[i]))
		}
		off += len(texts[i])
	}
	return strings.Join(texts, sep)
}

// differs warns when the single long part of an item's text is not a
// text that streamed while one streamed for the item: the final text
// differs from what streamed, and is the one kept.
func (d *responsesDecoder) differs(parts []string, index int, kind albedo.ItemKind) {
	if len(parts) != 1 {
		return
	}
	v, ok := d.long(parts[0])
	if !ok || v.streamed {
		return
	}
	for _, p := range d.partials {
		if p.index == index && p.kind == kind && (p.text.Len() > 0 || p.arguments.Len() > 0) {
			d.log.Warn("the finished output item differs from what streamed; keeping the finished one",
				"provider", d.ep.Provider, "output_index", index, "bytes", v.n)
			return
		}
	}
}

// finishRaw returns an item's Raw as decoded, with each placeholder
// replaced: by its reference in refs, or else by the long string it
// stands for.
func (d *responsesDecoder) finishRaw(raw json.RawMessage, refs map[string]string) json.RawMessage {
	open := mustMarshal(placeholderPrefix + d.nonce + ":")
	open = open[:len(open)-1] // the string so far, without its closing quote
	if !bytes.Contains(raw, open) {
		return raw
	}
	var out []byte
	for {
		i := bytes.Index(raw, open)
		if i < 0 {
			break
		}
		end := bytes.IndexByte(raw[i+len(open):], '"')
		if end < 0 {
			break
		}
		end += i + len(open) + 1
		var s string
		if json.Unmarshal(raw[i:end], &s) != nil {
			break
		}
		out = append(out, raw[:i]...)
		if r, ok := refs[s]; ok {
			out = append(out, mustMarshal(r)...)
		} else {
			out = append(out, mustMarshal(d.text(s))...)
		}
		raw = raw[end:]
	}
	return append(out, raw...)
}

// Native forms of the items made from deltas, with a long text left out.

func (d *responsesDecoder) messageRaw(text, status string) json.RawMessage {
	if len(text) > d.longString {
		text = albedo.TextRef(0, len(text))
	}
	return albedo.ResponsesMessage(text, status)
}

func (d *responsesDecoder) reasoningRaw(text string) json.RawMessage {
	if len(text) > d.longString {
		text = albedo.TextRef(0, len(text))
	}
	return mustMarshal(map[string]any{"type": "reasoning", "summary": []map[string]string{{"type": "summary_text", "text": text}}})
}

func (d *responsesDecoder) callRaw(callID, name, arguments string) json.RawMessage {
	if len(arguments) > d.longString {
		arguments = albedo.ArgumentsRef(0, len(arguments))
	}
	return mustMarshal(map[string]string{"type": "function_call", "call_id": callID, "name": name, "arguments": arguments})
}
