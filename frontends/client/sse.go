package client

import (
	"bufio"
	"bytes"
	"io"
)

// sseReader reads the data of server-sent events, one event at a time.
type sseReader struct {
	r *bufio.Reader
	// id is the id of the event next last returned, "" without one.
	id string
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the data of the next event that has any, its data lines
// joined by newlines, and its id ("" without one). Comments and other
// fields are skipped. At the end of the input it returns io.EOF, or
// io.ErrUnexpectedEOF when an event was cut short.
func (s *sseReader) next() ([]byte, error) {
	var data []byte
	var have bool
	s.id = ""
	for {
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			if err == io.EOF && (have || len(line) > 0) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			if have {
				return data, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(field) == 0 {
			continue // a comment, such as the daemon's ": ping"
		}
		if string(field) == "id" {
			s.id = string(bytes.TrimPrefix(value, []byte(" ")))
			continue
		}
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if have {
			data = append(data, '\n')
		}
		data = append(data, value...)
		have = true
	}
}
