package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// requestBody is the body of one model request, kept as the pieces it is
// made of rather than in one buffer: the members before the input array,
// the input items as the service projected them, and the members after
// it. The items are written as they are, already JSON, so the body costs
// neither a second copy of the transcript nor a pass over it to validate
// and compact what the service encoded.
type requestBody struct {
	head []byte
	// lead, when not nil, is written before the items.
	lead  []byte
	items []json.RawMessage
	tail  []byte
	size  int64
	// asksInclude is set when the body asks for "include".
	asksInclude bool
}

// newBody lays out `{"model":M,"<array>":[lead,items...],<rest of
// envelope>}`, where envelope is the request's other members, encoded as
// an object; lead may be nil.
func newBody(model, array string, lead []byte, items []json.RawMessage, envelope any) (*requestBody, error) {
	rest, err := json.Marshal(envelope)
	if err != nil || len(rest) < 2 || rest[0] != '{' {
		return nil, fmt.Errorf("encoding the request's members: %v", err)
	}
	head := fmt.Appendf(nil, `{"model":%s,%s:[`, mustMarshal(model), mustMarshal(array))
	tail := []byte{']'}
	if len(rest) > 2 {
		tail = append(append(tail, ','), rest[1:]...)
	} else {
		tail = append(tail, '}')
	}
	b := &requestBody{head: head, lead: lead, items: items, tail: tail}
	b.size = int64(len(head) + len(tail))
	for i := range b.pieces() {
		if i > 0 {
			b.size++
		}
		first, second := b.piece(i)
		b.size += int64(len(first) + len(second))
	}
	return b, nil
}

// pieces is how many values the input array holds.
func (b *requestBody) pieces() int {
	if b.lead != nil {
		return len(b.items) + 1
	}
	return len(b.items)
}

// piece returns value i of the input array, in two parts.
func (b *requestBody) piece(i int) ([]byte, []byte) {
	if b.lead != nil {
		if i == 0 {
			return b.lead, nil
		}
		i--
	}
	if len(b.items[i]) == 0 {
		return null, nil // as encoding/json writes an empty item
	}
	return b.items[i], nil
}

var null = []byte("null")

// Len is the exact size of the body in bytes.
func (b *requestBody) Len() int64 { return b.size }

// reader returns a fresh reader of the whole body.
func (b *requestBody) reader() io.Reader { return &bodyReader{b: b} }

// Bytes returns the body in one buffer; only tests need it whole.
func (b *requestBody) Bytes() []byte {
	var buf bytes.Buffer
	buf.Grow(int(b.size))
	_, _ = io.Copy(&buf, b.reader())
	return buf.Bytes()
}

// bodyReader reads a requestBody part by part: part 0 is the head, parts
// 1..pieces() the values of the input array (each but the first after a
// comma), and the last part the tail. off is how much of the current part
// was read; a comma counts as the first byte of the value it precedes.
type bodyReader struct {
	b    *requestBody
	part int
	off  int
}

// current returns the part being read, in two pieces, and whether a
// comma precedes it.
func (r *bodyReader) current() (sep bool, first, second []byte, ok bool) {
	n := r.b.pieces()
	switch {
	case r.part == 0:
		return false, r.b.head, nil, true
	case r.part <= n:
		first, second := r.b.piece(r.part - 1)
		return r.part > 1, first, second, true
	case r.part == n+1:
		return false, r.b.tail, nil, true
	}
	return false, nil, nil, false
}

// Read fills p from the parts.
func (r *bodyReader) Read(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		sep, first, second, ok := r.current()
		if !ok {
			if written == 0 {
				return 0, io.EOF
			}
			break
		}
		off := r.off
		if sep {
			if off == 0 {
				p[written] = ','
				written++
				r.off = 1
				continue
			}
			off--
		}
		data := second[max(off-len(first), 0):]
		if off < len(first) {
			data = first[off:]
		}
		n := copy(p[written:], data)
		written += n
		r.off += n
		if off+n == len(first)+len(second) {
			r.part, r.off = r.part+1, 0
		}
	}
	return written, nil
}
