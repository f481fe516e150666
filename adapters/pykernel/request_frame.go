package pykernel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// codeFrameBuffer is how much of a frame writeRequest encodes before it
// writes it.
const codeFrameBuffer = 256 << 10

// writeRequest writes req to w as one frame (size, then body). A cell's
// code, which may be many MiB (a cell writing a large file), is encoded
// as it is written, after the other members, a piece at a time:
// encoding/json would build the whole body in a buffer that doubles as it
// grows, copy it out, and the frame would copy it again, so a 50 MiB cell
// would be held about four times over while it is sent.
func writeRequest(w io.Writer, req request) error {
	code := req.Code
	req.Code = ""
	rest, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encoding a %s request: %w", req.Type, err)
	}
	if code == "" {
		return writeFrame(w, rest)
	}
	size := len(rest) + len(`,"code":`) + codeLen(code)
	buf := make([]byte, 4, min(4+size, codeFrameBuffer+64))
	binary.BigEndian.PutUint32(buf, uint32(size))
	buf = append(buf, rest[:len(rest)-1]...)
	buf = append(buf, `,"code":`...)
	for piece := range codePieces(code, codeFrameBuffer) {
		buf = appendCode(buf, piece.text, piece.first, piece.last)
		if piece.last {
			buf = append(buf, '}')
		}
		if len(buf) >= codeFrameBuffer || piece.last {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}

// codePiece is a part of a code string, cut on a character boundary.
type codePiece struct {
	text        string
	first, last bool
}

// codePieces cuts s into pieces of about n bytes, each ending on a
// character boundary (or inside invalid UTF-8, which encodes byte by
// byte). An empty s is one empty piece.
func codePieces(s string, n int) func(func(codePiece) bool) {
	return func(yield func(codePiece) bool) {
		first := true
		for {
			end := len(s)
			if end > n {
				end = n
				for end > 0 && !utf8.RuneStart(s[end]) {
					end--
				}
				if end == 0 {
					end = n
				}
			}
			last := end == len(s)
			if !yield(codePiece{text: s[:end], first: first, last: last}) || last {
				return
			}
			s, first = s[end:], false
		}
	}
}

// appendCode appends s as a JSON string, invalid UTF-8 as U+FFFD (as
// encoding/json writes it; the kernel reads its frames as UTF-8): with its
// opening quote when first, its closing one when last.
func appendCode(b []byte, s string, first, last bool) []byte {
	if first {
		b = append(b, '"')
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(append(b, s[start:i]...), `\ufffd`...)
				start = i + 1
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	if last {
		b = append(b, '"')
	}
	return b
}

const hexDigit = "0123456789abcdef"

// codeLen returns len(appendCode(nil, s)) without building it.
func codeLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				n += len(`\ufffd`)
			} else {
				n += size
			}
			i += size
			continue
		}
		switch {
		case c >= 0x20 && c != '"' && c != '\\':
			n++
		case c == '"' || c == '\\' || c == '\n':
			n += 2
		default:
			n += len(`\u0000`)
		}
		i++
	}
	return n
}
