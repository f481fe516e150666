// Package sse reads text/event-stream bodies, the server-sent events of
// the HTML standard: both the OpenAI adapter (model replies) and the Go
// client (a session's stream) read theirs with it.
package sse

import (
	"bufio"
	"bytes"
	"io"
	"strings"
)

// Event is one dispatched event.
type Event struct {
	// Type is the value of the event's last "event:" field, "" without one.
	Type string
	// Data is the event's "data:" lines joined with newlines.
	Data string
	// ID is the last event id the stream sent so far.
	ID string
}

// TooLong is the error of a line or an event's data longer than the
// Reader's limit; What says which ("a stream line", "a stream event").
type TooLong struct{ What string }

func (e *TooLong) Error() string { return e.What + " longer than the limit" }

// Reader splits a body into events. It accepts \n, \r\n and \r line ends
// however the body is cut into reads, and never waits for more input than
// the line it is completing. Comments and the "retry" field are skipped;
// a leading byte order mark is dropped. One field beyond the standard is
// read: "error: …", which llama.cpp's server writes for a failure, reads
// as an event of type "error" with that data.
type Reader struct {
	br *bufio.Reader
	// limit, when positive, caps a line and an event's data; past it Next
	// stops reading and returns a *TooLong, so an endless line is never
	// held whole.
	limit   int
	line    []byte
	data    strings.Builder
	hasData bool
	typ     string
	lastID  string
	// skipLF is set after a line ended in \r: a \n that follows belongs
	// to the same line end.
	skipLF, started bool
}

// NewReader returns a reader of the events in r; limit caps a line and an
// event's data in bytes, 0 for no cap.
func NewReader(r io.Reader, limit int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 32<<10), limit: limit}
}

// Next returns the next event that has data. At the end of the body it
// returns io.EOF, or io.ErrUnexpectedEOF when the body ended inside an
// event (which is dropped, as the standard says); a read error is
// returned as it is.
func (s *Reader) Next() (Event, error) {
	for {
		line, err := s.readLine()
		if err == io.EOF && (s.hasData || s.typ != "") {
			s.data.Reset()
			s.hasData, s.typ = false, ""
			return Event{}, io.ErrUnexpectedEOF
		}
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if ev, ok := s.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		value, ok := s.field(line)
		if !ok {
			continue
		}
		if s.limit > 0 && s.data.Len()+len(value) > s.limit {
			return Event{}, &TooLong{"a stream event"}
		}
		if s.hasData {
			s.data.WriteByte('\n')
		}
		s.data.Write(value)
		s.hasData = true
	}
}

// dispatch ends the event being collected, returning it unless it had no
// data.
func (s *Reader) dispatch() (Event, bool) {
	typ := s.typ
	s.typ = ""
	if !s.hasData {
		return Event{}, false
	}
	ev := Event{Type: typ, Data: s.data.String(), ID: s.lastID}
	s.data.Reset()
	s.hasData = false
	return ev, true
}

// field applies one non-empty line; for a line that adds to the event's
// data it returns the value to add.
func (s *Reader) field(line []byte) ([]byte, bool) {
	name, value, found := bytes.Cut(line, []byte(":"))
	if len(name) == 0 && found {
		return nil, false // a comment, often sent as a keep-alive
	}
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "data":
		return value, true
	case "event":
		s.typ = string(value)
	case "error":
		s.typ = "error"
		return value, true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.lastID = string(value)
		}
	}
	return nil, false
}

// readLine returns the next line without its line end, valid until the
// next call; a last line without a line end comes at the end of the body,
// then io.EOF.
func (s *Reader) readLine() ([]byte, error) {
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
		end := i >= 0
		if !end {
			i = len(buf)
		}
		s.line = append(s.line, buf[:i]...)
		if s.limit > 0 && len(s.line) > s.limit {
			return nil, &TooLong{"a stream line"}
		}
		if !end {
			_, _ = s.br.Discard(i)
			continue
		}
		s.skipLF = buf[i] == '\r'
		_, _ = s.br.Discard(i + 1)
		return s.first(s.line), nil
	}
}

// first drops a byte order mark from the stream's first line.
func (s *Reader) first(line []byte) []byte {
	if s.started {
		return line
	}
	s.started = true
	return bytes.TrimPrefix(line, []byte("\ufeff"))
}
