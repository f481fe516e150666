package openai

import (
	"bufio"
	"bytes"
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
}

// newSSEReader returns a reader of the events in r.
func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 32<<10)}
}

// next returns the next event, or io.EOF when the body ended, or the
// body's read error.
func (s *sseReader) next() (sseEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if ev, ok := s.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		s.field(line)
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

// field applies one non-empty line to the event being collected.
func (s *sseReader) field(line []byte) {
	if line[0] == ':' {
		return // a comment, often sent as a keep-alive
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
		if s.hasData {
			s.data.WriteByte('\n')
		}
		s.data.Write(value)
		s.hasData = true
	case "event":
		s.typ = string(value)
	case "error":
		// Not a field of the standard: llama.cpp's server writes a failure
		// as "error: {...}". It reads as an event of type error.
		s.typ = "error"
		if s.hasData {
			s.data.WriteByte('\n')
		}
		s.data.Write(value)
		s.hasData = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.lastID = string(value)
		}
	}
	// "retry" and unknown fields are ignored.
}

// readLine returns the next line without its line end. The returned slice
// is valid until the next call. A last line without a line end is returned
// at the end of the body, then io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		if _, err := s.br.Peek(1); err != nil {
			if err == io.EOF && len(s.line) > 0 {
				return s.first(s.line), nil
			}
			return nil, err
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
			continue
		}
		s.line = append(s.line, buf[:i]...)
		s.skipLF = buf[i] == '\r'
		_, _ = s.br.Discard(i + 1)
		return s.first(s.line), nil
	}
}

// first drops a byte order mark from the stream's first line.
func (s *sseReader) first(line []byte) []byte {
	if s.started {
		return line
	}
	s.started = true
	return bytes.TrimPrefix(line, []byte("\ufeff"))
}
