package openai

import (
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
func (b *textBuffer) WriteString(s string) {
	b.n += len(s)
	if b.long == nil && b.head.Len()+len(s) <= inlineText {
		b.head.WriteString(s)
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
