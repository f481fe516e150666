package openai

import (
	"bytes"
	"runtime"
	"strings"
)

// Sizes of a textBuffer: the first inlineText bytes are kept in an
// ordinary builder; past that, in chunks of chunkSize.
const (
	inlineText = 1 << 20
	chunkSize  = 4 << 20
)

// textBuffer collects a text that streams in fragments. A short text is
// kept in a strings.Builder. A long one continues in chunks mapped outside
// the Go heap, each handed back to the operating system as soon as String
// has copied it: a 50 MiB answer is then held once, as its final string,
// plus one chunk, where a growing buffer holds it about twice at its last
// growth and leaves the old copies for the collector. The zero value is
// empty and ready.
type textBuffer struct {
	head strings.Builder
	long *longText
	n    int
	// done is set once String built the text, which is then kept in text.
	done bool
	text string
}

// longText owns the chunks of a long text. Should a buffer be dropped
// before String ran, a cleanup attached to its longText unmaps them.
type longText struct{ chunks *chunkList }

// chunkList is a long text's chunks, in order; each is full but the last.
type chunkList struct{ chunks [][]byte }

// release unmaps every chunk.
func (c *chunkList) release() {
	for _, b := range c.chunks {
		freeChunk(b)
	}
	c.chunks = nil
}

// Len returns the bytes written.
func (b *textBuffer) Len() int { return b.n }

// WriteString appends s. It must not be called after String.
func (b *textBuffer) WriteString(s string) { appendText(b, s) }

// Write appends p. It must not be called after String.
func (b *textBuffer) Write(p []byte) { appendText(b, p) }

func appendText[T string | []byte](b *textBuffer, s T) {
	b.n += len(s)
	if b.long == nil && b.head.Len()+len(s) <= inlineText {
		switch s := any(s).(type) {
		case string:
			b.head.WriteString(s)
		case []byte:
			b.head.Write(s)
		}
		return
	}
	if b.long == nil {
		b.long = &longText{chunks: &chunkList{}}
		runtime.AddCleanup(b.long, (*chunkList).release, b.long.chunks)
	}
	c := b.long.chunks
	for len(s) > 0 {
		last := len(c.chunks) - 1
		if last < 0 || len(c.chunks[last]) == cap(c.chunks[last]) {
			c.chunks = append(c.chunks, newChunk(chunkSize))
			last++
		}
		chunk := c.chunks[last]
		n := min(len(s), cap(chunk)-len(chunk))
		c.chunks[last] = append(chunk, s[:n]...)
		s = s[n:]
	}
}

// String returns the text. The first call builds it in one string of its
// exact size, releasing each chunk once copied; later calls return it again.
func (b *textBuffer) String() string {
	if b.done {
		return b.text
	}
	b.done = true
	if b.long == nil {
		b.text = b.head.String()
		return b.text
	}
	var out strings.Builder
	out.Grow(b.n)
	out.WriteString(b.head.String())
	b.head = strings.Builder{}
	c := b.long.chunks
	for i, chunk := range c.chunks {
		out.Write(chunk)
		freeChunk(chunk)
		c.chunks[i] = nil
	}
	c.chunks = nil
	b.text = out.String()
	return b.text
}

// pieces calls inline, then chunk, with the text's bytes from off to
// off+n, in order, in pieces, until one returns false; it reports whether
// none did. It reads what was written without building the text, so it may
// run between writes. It must not be called after String.
func (b *textBuffer) pieces(off, n int, inline func(string) bool, chunk func([]byte) bool) bool {
	if off < 0 || n < 0 || off+n > b.n || b.done {
		panic("openai: textBuffer read out of bounds or after String")
	}
	head := b.head.String()
	if off < len(head) {
		k := min(n, len(head)-off)
		if !inline(head[off : off+k]) {
			return false
		}
		off, n = off+k, n-k
	}
	off = max(off-len(head), 0)
	if b.long == nil {
		return true
	}
	for _, c := range b.long.chunks.chunks {
		if n == 0 {
			break
		}
		if off >= len(c) {
			off -= len(c)
			continue
		}
		k := min(n, len(c)-off)
		if !chunk(c[off : off+k]) {
			return false
		}
		off, n = 0, n-k
	}
	return true
}

// equalAt reports whether the text holds p from byte off. It may run
// between writes and after String.
func (b *textBuffer) equalAt(off int, p []byte) bool {
	if off < 0 || off+len(p) > b.n {
		return false
	}
	if b.done {
		return b.text[off:off+len(p)] == string(p)
	}
	return b.pieces(off, len(p), func(s string) bool {
		same := s == string(p[:len(s)])
		p = p[len(s):]
		return same
	}, func(c []byte) bool {
		same := bytes.Equal(c, p[:len(c)])
		p = p[len(c):]
		return same
	})
}

// copyTo appends the text's first n bytes to dst. It may run between
// writes and after String.
func (b *textBuffer) copyTo(dst *textBuffer, n int) {
	if b.done {
		dst.WriteString(b.text[:n])
		return
	}
	b.pieces(0, n, func(s string) bool { dst.WriteString(s); return true }, func(c []byte) bool { dst.Write(c); return true })
}

// prefix returns the text's first n bytes, leaving the buffer open for
// writes.
func (b *textBuffer) prefix(n int) string {
	if b.done {
		return b.text[:n]
	}
	var out strings.Builder
	out.Grow(n)
	b.pieces(0, n, func(s string) bool { out.WriteString(s); return true }, func(c []byte) bool { out.Write(c); return true })
	return out.String()
}

// release hands the buffer's chunks back at once and empties it.
func (b *textBuffer) release() {
	if b.long != nil {
		b.long.chunks.release()
	}
	*b = textBuffer{}
}
