// Package clip keeps a long text's first and last bytes within a bound,
// with one line saying how many bytes between them were cut: a cell's
// output as the model sees it, and as the spools keep it across a crash.
package clip

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line is what stands where cut bytes were.
func Line(cut int64) string { return fmt.Sprintf("\n[... %d bytes cut ...]\n", cut) }

// Buffer keeps the first and the last bytes written to it, up to a limit
// in all, and counts the rest. The zero Buffer keeps nothing.
type Buffer struct {
	headMax, tailMax int
	head             []byte
	tail             []byte // the last bytes; trimmed to tailMax lazily
	total            int64
}

// New returns a buffer that keeps limit bytes: half from the start, half
// from the end.
func New(limit int) Buffer {
	head := limit / 2
	return Buffer{headMax: head, tailMax: limit - head}
}

// Write keeps what fits and never fails.
func (b *Buffer) Write(p []byte) (int, error) {
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

// Head returns the first bytes kept; the caller must not change them.
func (b *Buffer) Head() []byte { return b.head }

// Tail returns the last bytes kept after the head; the caller must not
// change them.
func (b *Buffer) Tail() []byte {
	if len(b.tail) > b.tailMax {
		return b.tail[len(b.tail)-b.tailMax:]
	}
	return b.tail
}

// Total counts every byte written.
func (b *Buffer) Total() int64 { return b.total }

// String returns the kept text as valid UTF-8. When bytes were dropped,
// Line stands where they were, and no character is split at it.
func (b *Buffer) String() string {
	tail := b.Tail()
	if b.total == int64(len(b.head))+int64(len(tail)) {
		return strings.ToValidUTF8(string(b.head)+string(tail), "\uFFFD")
	}
	head, tail := TrimRuneEnd(b.head), TrimRuneStart(tail)
	var s strings.Builder
	s.Write(head)
	s.WriteString(Line(b.total - int64(len(head)) - int64(len(tail))))
	s.Write(tail)
	return strings.ToValidUTF8(s.String(), "\uFFFD")
}

// Text caps s at limit bytes as a Buffer of limit does.
func Text(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	b := New(limit)
	b.Write([]byte(s))
	return b.String()
}

// TrimRuneEnd drops an incomplete UTF-8 sequence from the end of p.
func TrimRuneEnd(p []byte) []byte {
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

// TrimRuneStart drops UTF-8 continuation bytes from the start of p.
func TrimRuneStart(p []byte) []byte {
	for i := 0; i < len(p) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}
