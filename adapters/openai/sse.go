package openai

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	// Type is the value of the last "event:" field, empty when none was sent.
	Type string
	// Data is the event's "data:" lines joined with newlines.
	Data string
	// ID is the last event id seen on the stream so far.
	ID string
	// body streams the data of an event too long to hold whole, set instead
	// of Data (see sseReader.streamAbove). Type and ID are then only known
	// once the body was read to its end (body.typ, body.id).
	body *sseBody
}

// done reports whether the event is the "[DONE]" sentinel that ends a Chat
// Completions stream.
func (e sseEvent) done() bool { return e.Data == "[DONE]" }

// sseReader splits a text/event-stream body into events. It accepts \n,
// \r\n and \r line ends, however the body is cut into reads, and never
// waits for more input than the line it is completing. An event still open
// when the body ends is dropped, as the event-stream format prescribes.
type sseReader struct {
	br *bufio.Reader
	// skipLF is set after a line ended in \r: a \n that follows belongs to
	// the same line end.
	skipLF bool
	// started is set once the first line has been read (a leading byte
	// order mark is dropped from it).
	started bool
	line    []byte
	data    strings.Builder
	hasData bool
	typ     string
	lastID  string
	// streamAbove, when positive, is the length past which a data line is
	// not collected: the event comes with a body that reads its data from
	// the stream as it arrives.
	streamAbove int
	// open is the streamed event whose body is still being read.
	open *sseBody
	// limit, when positive, caps a line and an event's data: past it,
	// reading stops with a *tooLong error, so that an endless line is
	// never held.
	limit int
}

// newSSEReader returns a reader of the events in r.
func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 32<<10)}
}

// next returns the next event, or io.EOF when the body ended, or the
// body's read error. The body of a streamed event not read to its end is
// read (and dropped) first.
func (s *sseReader) next() (sseEvent, error) {
	if s.open != nil {
		if _, err := io.Copy(io.Discard, s.open); err != nil {
			if err == errEventOpen {
				return sseEvent{}, io.EOF
			}
			return sseEvent{}, unwrapRead(err)
		}
	}
	for {
		line, long, err := s.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if long {
			return s.stream(line), nil
		}
		if len(line) == 0 {
			if ev, ok := s.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if value, ok := s.field(line); ok {
			if s.limit > 0 && s.data.Len()+len(value) > s.limit {
				return sseEvent{}, &tooLong{"a stream event"}
			}
			if s.hasData {
				s.data.WriteByte('\n')
			}
			s.data.Write(value)
			s.hasData = true
		}
	}
}

// dispatch ends the event being collected, returning it unless it had no
// data field.
func (s *sseReader) dispatch() (sseEvent, bool) {
	typ := s.typ
	s.typ = ""
	if !s.hasData {
		return sseEvent{}, false
	}
	ev := sseEvent{Type: typ, Data: s.data.String(), ID: s.lastID}
	s.data.Reset()
	s.hasData = false
	return ev, true
}

// field applies one non-empty line to the event being collected; for a
// line that adds to the event's data it returns the value to add.
func (s *sseReader) field(line []byte) ([]byte, bool) {
	if line[0] == ':' {
		return nil, false // a comment, often sent as a keep-alive
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		return value, true
	case "event":
		s.typ = string(value)
	case "error":
		// Not a field of the standard: llama.cpp's server writes a failure
		// as "error: {...}". It reads as an event of type error.
		s.typ = "error"
		return value, true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.lastID = string(value)
		}
	}
	// "retry" and unknown fields are ignored.
	return nil, false
}

// readLine returns the next line without its line end. The returned slice
// is valid until the next call. A last line without a line end is returned
// at the end of the body, then io.EOF. A data line longer than streamAbove
// (when set) comes back unfinished, reporting long: the rest of it is still
// to be read (readPart).
func (s *sseReader) readLine() (line []byte, long bool, err error) {
	s.line = s.line[:0]
	for {
		if _, err := s.br.Peek(1); err != nil {
			if err == io.EOF && len(s.line) > 0 {
				return s.first(s.line), false, nil
			}
			return nil, false, err
		}
		buf, _ := s.br.Peek(s.br.Buffered())
		if s.skipLF {
			s.skipLF = false
			if buf[0] == '\n' {
				_, _ = s.br.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			s.line = append(s.line, buf...)
			_, _ = s.br.Discard(len(buf))
			if s.limit > 0 && len(s.line) > s.limit && s.streamAbove <= 0 {
				return nil, false, &tooLong{"a stream line"}
			}
			// Long enough to know a byte order mark and the space after
			// the field name, if any.
			if s.streamAbove > 0 && len(s.line) > s.streamAbove && len(s.line) > len("\ufeffdata: ") {
				if s.line = s.first(s.line); len(s.line) > len("data:") && bytes.HasPrefix(s.line, []byte("data:")) {
					return s.line, true, nil
				}
			}
			continue
		}
		s.line = append(s.line, buf[:i]...)
		s.skipLF = buf[i] == '\r'
		_, _ = s.br.Discard(i + 1)
		if s.limit > 0 && len(s.line) > s.limit && s.streamAbove <= 0 {
			return nil, false, &tooLong{"a stream line"}
		}
		return s.first(s.line), false, nil
	}
}

// readPart reads the line being read on into p, up to its end; end
// reports that the line ended (with a line end or with the body).
func (s *sseReader) readPart(p []byte) (n int, end bool, err error) {
	if _, err := s.br.Peek(1); err != nil {
		if err == io.EOF {
			return 0, true, nil
		}
		return 0, false, err
	}
	buf, _ := s.br.Peek(s.br.Buffered())
	i := bytes.IndexAny(buf, "\r\n")
	if i < 0 {
		n = copy(p, buf)
		_, _ = s.br.Discard(n)
		return n, false, nil
	}
	n = copy(p, buf[:i])
	if n < i {
		_, _ = s.br.Discard(n)
		return n, false, nil
	}
	s.skipLF = buf[i] == '\r'
	_, _ = s.br.Discard(i + 1)
	return n, true, nil
}

// first drops a byte order mark from the stream's first line.
func (s *sseReader) first(line []byte) []byte {
	if s.started {
		return line
	}
	s.started = true
	return bytes.TrimPrefix(line, []byte("\ufeff"))
}

// stream starts a streamed event at its long data line, whose beginning
// is line: the data lines collected before it, and what arrived of it, are
// handed out first.
func (s *sseReader) stream(line []byte) sseEvent {
	value, _ := s.field(line)
	var pending []byte
	if s.hasData {
		pending = append([]byte(s.data.String()), '\n')
	}
	pending = append(pending, value...)
	s.data.Reset()
	s.hasData = false
	b := &sseBody{s: s, pending: pending, inLine: true}
	s.open = b
	return sseEvent{body: b}
}

// errEventOpen ends the body of a streamed event when the stream ended
// before the event did: the event-stream format drops such an event.
var errEventOpen = errors.New("the stream ended inside an event")

// sseBody reads a streamed event's data: its data lines joined by
// newlines, as they arrive. It ends (io.EOF) at the blank line that
// dispatches the event, with errEventOpen when the stream ends first, or
// with a *readError when reading the stream failed.
type sseBody struct {
	s       *sseReader
	pending []byte
	// inLine is set while the rest of a data line is still to be read.
	inLine bool
	err    error
	// typ and id are the event's type and last event id, known once the
	// body was read to its end.
	typ, id string
}

// Read implements io.Reader.
func (b *sseBody) Read(p []byte) (int, error) {
	for {
		if len(b.pending) > 0 {
			n := copy(p, b.pending)
			b.pending = b.pending[n:]
			return n, nil
		}
		if b.err != nil {
			return 0, b.err
		}
		if b.inLine {
			n, end, err := b.s.readPart(p)
			if err != nil {
				b.err = &readError{err}
				continue
			}
			b.inLine = !end
			if n > 0 {
				return n, nil
			}
			continue
		}
		line, long, err := b.s.readLine()
		switch {
		case err == io.EOF:
			b.err = errEventOpen
		case err != nil:
			b.err = &readError{err}
		case len(line) == 0:
			b.typ, b.id, b.s.typ = b.s.typ, b.s.lastID, ""
			b.s.open = nil
			b.err = io.EOF
		default:
			if value, ok := b.s.field(line); ok {
				b.pending = append(append(b.pending[:0], '\n'), value...)
				b.inLine = long
			}
		}
	}
}

// unwrapRead returns the error reading a stream that err stands for.
func unwrapRead(err error) error {
	var r *readError
	if errors.As(err, &r) {
		return r.err
	}
	return err
}
