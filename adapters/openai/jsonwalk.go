package openai

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// stringSink receives the decoded bytes of one long JSON string, in
// pieces, and names what stands in for it.
type stringSink interface {
	write(p []byte)
	// end is called after the last write; it returns the JSON string
	// literal that takes the long string's place.
	end() string
}

// errJSONEnd is the syntax error of a JSON text cut inside a string.
var errJSONEnd error = &syntaxError{"unexpected end of JSON input"}

// syntaxError is a string literal that is not valid JSON.
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }

// longJSONWalker copies a JSON text, except that a string value (not a
// member name) whose encoded form is longer than long bytes is not
// copied: it is decoded
// into a stringSink as it is read, and the literal the sink names takes
// its place. What is copied stays as it was, byte for byte, so the copy
// decodes like the original once each stand-in is read as the string it
// stands for. The copy is checked only where it is not copied (in long
// strings); the rest is left to the JSON decoder that reads the copy.
type longJSONWalker struct {
	r    *bufio.Reader
	out  []byte
	long int
	open func() stringSink
	// dec is the decoded string being read: all of it while it is short,
	// what waits for its sink once it is long.
	dec []byte
	// nest are the open containers ('{' or '['); key is set where the
	// next string is a member name, which is always copied.
	nest []byte
	key  bool
}

// sinkPiece is how many decoded bytes of a long string are handed to its
// sink at a time.
const sinkPiece = 32 << 10

// walkLongJSON copies the JSON text r holds, with every string longer
// than long bytes (encoded) decoded into a sink from open and replaced by
// the sink's literal. The memory it uses is bounded by what it copies,
// however long the strings. Errors reading r are returned as they are.
func walkLongJSON(r io.Reader, long int, open func() stringSink) ([]byte, error) {
	w := &longJSONWalker{r: bufio.NewReaderSize(r, 64<<10), long: long, open: open}
	for {
		buf, err := w.peek()
		if err == io.EOF {
			return w.out, nil
		}
		if err != nil {
			return nil, err
		}
		i := w.structure(buf)
		if i == len(buf) {
			w.out = append(w.out, buf...)
			_, _ = w.r.Discard(len(buf))
			continue
		}
		w.out = append(w.out, buf[:i]...)
		_, _ = w.r.Discard(i + 1)
		if err := w.str(); err != nil {
			return nil, err
		}
		w.key = false
	}
}

// structure follows the containers in buf up to its first quote, whose
// index it returns (len(buf) when there is none), so that the walker
// knows whether the string there is a member name.
func (w *longJSONWalker) structure(buf []byte) int {
	for i, c := range buf {
		switch c {
		case '"':
			return i
		case '{':
			w.nest = append(w.nest, c)
			w.key = true
		case '[':
			w.nest = append(w.nest, c)
			w.key = false
		case '}', ']':
			if len(w.nest) > 0 {
				w.nest = w.nest[:len(w.nest)-1]
			}
			w.key = false
		case ',':
			w.key = len(w.nest) > 0 && w.nest[len(w.nest)-1] == '{'
		case ':':
			w.key = false
		}
	}
	return len(buf)
}

// peek returns what is buffered, reading more when nothing is.
func (w *longJSONWalker) peek() ([]byte, error) {
	if _, err := w.r.Peek(1); err != nil {
		return nil, err
	}
	return w.r.Peek(w.r.Buffered())
}

// str reads a string whose opening quote was just read.
func (w *longJSONWalker) str() error {
	start := len(w.out)
	w.out = append(w.out, '"')
	w.dec = w.dec[:0]
	var sink stringSink
	for {
		buf, err := w.peek()
		if err == io.EOF {
			return errJSONEnd
		}
		if err != nil {
			return err
		}
		raw, n, err := w.segment(buf)
		if err != nil {
			return err
		}
		if n < 0 {
			// The closing quote.
			_, _ = w.r.Discard(1)
			if sink == nil {
				w.out = append(w.out, '"')
				return nil
			}
			sink.write(w.dec)
			w.out = append(w.out, sink.end()...)
			return nil
		}
		if sink == nil {
			w.out = append(w.out, raw...)
			if !w.key && len(w.out)-start > w.long {
				sink = w.open()
				w.out = w.out[:start]
			}
		}
		if sink != nil && len(w.dec) >= sinkPiece {
			sink.write(w.dec)
			w.dec = w.dec[:0]
		}
		_, _ = w.r.Discard(n)
	}
}

// segment decodes the start of buf, inside a string, into w.dec: a run of
// plain characters, one escape, or one character that needs more bytes
// than are buffered. It returns the raw bytes it decoded and how many they
// are, or n < 0 when buf starts with the closing quote. It may read more
// into the buffer (invalidating buf) to finish an escape or a character.
func (w *longJSONWalker) segment(buf []byte) (raw []byte, n int, err error) {
	i := 0
	for i < len(buf) && buf[i] >= 0x20 && buf[i] != '"' && buf[i] != '\\' {
		i++
	}
	if i > 0 {
		if i == len(buf) {
			// A character cut by the buffer's end waits for its rest.
			i = completeRunes(buf[:i])
		}
		if i > 0 {
			w.dec = appendValidUTF8(w.dec, buf[:i])
			return buf[:i], i, nil
		}
		// Only the start of a character is buffered: read its rest.
		more, _ := w.r.Peek(utf8.UTFMax)
		r, size := utf8.DecodeRune(more)
		if r == utf8.RuneError && size <= 1 {
			w.dec = utf8.AppendRune(w.dec, utf8.RuneError)
			return more[:1], 1, nil
		}
		w.dec = append(w.dec, more[:size]...)
		return more[:size], size, nil
	}
	switch c := buf[0]; {
	case c == '"':
		return nil, -1, nil
	case c < 0x20:
		return nil, 0, &syntaxError{"invalid character in string literal"}
	}
	esc, err := w.r.Peek(2)
	if len(esc) < 2 {
		return nil, 0, endOr(err)
	}
	if simple := unescape(esc[1]); simple != 0 {
		w.dec = append(w.dec, simple)
		return esc, 2, nil
	}
	if esc[1] != 'u' {
		return nil, 0, &syntaxError{"invalid escape in string literal"}
	}
	u, err := w.r.Peek(12)
	if len(u) < 6 {
		return nil, 0, endOr(err)
	}
	r, ok := hex4(u[2:6])
	if !ok {
		return nil, 0, &syntaxError{"invalid \\u escape in string literal"}
	}
	if utf16.IsSurrogate(r) {
		if len(u) == 12 && u[6] == '\\' && u[7] == 'u' {
			if low, ok := hex4(u[8:12]); ok {
				if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
					w.dec = utf8.AppendRune(w.dec, pair)
					return u[:12], 12, nil
				}
			}
		}
		r = utf8.RuneError
	}
	w.dec = utf8.AppendRune(w.dec, r)
	return u[:6], 6, nil
}

// endOr returns the error of a JSON text that ends inside an escape, or
// the error reading it.
func endOr(err error) error {
	if err == nil || err == io.EOF {
		return errJSONEnd
	}
	return err
}

// completeRunes returns how much of b ends on a character boundary: b less
// a last character that is cut short.
func completeRunes(b []byte) int {
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return len(b)
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return len(b)
			}
			return len(b) - k
		}
	}
	return len(b)
}

// appendValidUTF8 appends b with each byte that is not part of a valid
// UTF-8 character replaced by U+FFFD, as encoding/json decodes strings.
func appendValidUTF8(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst
}

// unescape returns the byte a one-letter escape stands for, 0 for none.
func unescape(c byte) byte {
	switch c {
	case '"', '\\', '/':
		return c
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// hex4 reads four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(n), err == nil
}
