package pykernel

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/albedo-agent/albedo/internal/clip"
)

// capture takes a kernel's combined stdout and stderr, chunk by chunk, and
// keeps the part that belongs to the running cell: the bytes written after
// the cell began up to the marker the kernel writes when it ends. Bytes
// written between cells are dropped.
type capture struct {
	mu     sync.Mutex
	marker []byte // nil while no cell is collecting
	carry  []byte // a tail that may be the start of the marker
	out    clip.Buffer
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
	c.out = clip.New(limit)
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
		p = clip.TrimRuneEnd(p)
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
	c.out = clip.Buffer{}
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
