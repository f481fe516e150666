package pykernel

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture takes a kernel's combined stdout and stderr, chunk by chunk, and
// keeps the part that belongs to the running cell: the bytes written after
// the cell began up to the marker the kernel writes when it ends. Bytes
// written between cells are dropped.
type capture struct {
	mu     sync.Mutex
	marker []byte // nil while no cell is collecting
	carry  []byte // a tail that may be the start of the marker
	out    clipBuffer
	found  chan struct{}
	// live collects, uncut, what the cell wrote since takeLive last took
	// it, when liveOn is set: at most liveLimit bytes of a cell, the rest
	// counted in liveDropped.
	live        []byte
	liveOn      bool
	liveLeft    int
	liveDropped int64
}

// liveLimit caps the live output of one cell, which every subscriber of
// its session may buffer; the result's Output is cut far sooner.
const liveLimit = 8 << 20

// begin starts collecting a cell's output, at most limit bytes of it, up
// to marker, and with live set keeps what the cell writes for takeLive.
// The returned channel is closed when the marker arrives.
func (c *capture) begin(marker string, limit int, live bool) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.marker = []byte(marker)
	c.carry = nil
	c.out = newClipBuffer(limit)
	c.found = make(chan struct{})
	c.live, c.liveOn, c.liveLeft, c.liveDropped = nil, live, liveLimit, 0
	return c.found
}

// keep adds bytes of the cell's output.
func (c *capture) keep(p []byte) {
	c.out.Write(p)
	if c.liveOn {
		k := min(len(p), c.liveLeft)
		c.live = append(c.live, p[:k]...)
		c.liveLeft -= k
		c.liveDropped += int64(len(p) - k)
	}
}

// takeLive returns what the cell wrote since the last call, as valid
// UTF-8. Unless final, an incomplete character at the end waits for the
// next call; the final call says how much went past liveLimit.
func (c *capture) takeLive(final bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.live
	if !final {
		p = trimRuneEnd(p)
	}
	text := strings.ToValidUTF8(string(p), "\uFFFD")
	c.live = append(c.live[:0], c.live[len(p):]...)
	if final && c.liveDropped > 0 {
		text += fmt.Sprintf("\n[... %d more bytes not shown live ...]\n", c.liveDropped)
		c.liveDropped = 0
	}
	return text
}

// write takes the next chunk of the kernel's output.
func (c *capture) write(chunk []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.marker == nil {
		return
	}
	data := chunk
	if len(c.carry) > 0 {
		data = append(c.carry, chunk...)
		c.carry = nil
	}
	if i := bytes.Index(data, c.marker); i >= 0 {
		c.keep(data[:i])
		c.marker = nil
		close(c.found)
		return
	}
	keep := partialSuffix(data, c.marker)
	c.keep(data[:len(data)-keep])
	if keep > 0 {
		c.carry = append([]byte(nil), data[len(data)-keep:]...)
	}
}

// end stops collecting and returns the cell's output. When the marker never
// came, everything received so far counts.
func (c *capture) end() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.marker != nil {
		c.keep(c.carry)
	}
	c.marker, c.carry = nil, nil
	text := c.out.String()
	c.out = clipBuffer{}
	return text
}

// partialSuffix returns the length of the longest end of data that is a
// proper beginning of marker.
func partialSuffix(data, marker []byte) int {
	n := min(len(marker)-1, len(data))
	for k := n; k > 0; k-- {
		if bytes.HasPrefix(marker, data[len(data)-k:]) {
			return k
		}
	}
	return 0
}

// clipBuffer keeps the first and the last bytes written to it, up to a limit
// in all, and counts the rest.
type clipBuffer struct {
	headMax, tailMax int
	head             []byte
	tail             []byte // the last bytes; trimmed to tailMax lazily
	total            int64
}

// newClipBuffer returns a buffer that keeps limit bytes: half from the
// start, half from the end.
func newClipBuffer(limit int) clipBuffer {
	head := limit / 2
	return clipBuffer{headMax: head, tailMax: limit - head}
}

// Write keeps what fits and never fails.
func (b *clipBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	switch {
	case len(p) == 0 || b.tailMax == 0:
	case len(p) >= b.tailMax:
		b.tail = append(b.tail[:0], p[len(p)-b.tailMax:]...)
	default:
		b.tail = append(b.tail, p...)
		if len(b.tail) >= 2*b.tailMax {
			b.tail = b.tail[:copy(b.tail, b.tail[len(b.tail)-b.tailMax:])]
		}
	}
	return n, nil
}

// String returns the kept text as valid UTF-8. When bytes were dropped, a
// line "[... N bytes cut ...]" stands where they were.
func (b *clipBuffer) String() string {
	tail := b.tail
	if len(tail) > b.tailMax {
		tail = tail[len(tail)-b.tailMax:]
	}
	cut := b.total - int64(len(b.head)) - int64(len(tail))
	if cut == 0 {
		return strings.ToValidUTF8(string(b.head)+string(tail), "\uFFFD")
	}
	head, tail := trimRuneEnd(b.head), trimRuneStart(tail)
	cut = b.total - int64(len(head)) - int64(len(tail))
	var s strings.Builder
	s.Write(head)
	fmt.Fprintf(&s, "\n[... %d bytes cut ...]\n", cut)
	s.Write(tail)
	return strings.ToValidUTF8(s.String(), "\uFFFD")
}

// clipText caps s at limit bytes like clipBuffer.
func clipText(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	b := newClipBuffer(limit)
	b.Write([]byte(s))
	return b.String()
}

// trimRuneEnd drops an incomplete UTF-8 sequence from the end of p.
func trimRuneEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if utf8.FullRune(p[i:]) {
				return p
			}
			return p[:i]
		}
	}
	return p
}

// trimRuneStart drops UTF-8 continuation bytes from the start of p.
func trimRuneStart(p []byte) []byte {
	for i := 0; i < len(p) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}
