package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
)

// requestBody is the body of one model request, kept as the parts it is
// made of rather than in one buffer: the members before the input array,
// the array's values (the input items as the service projected them) with
// the commas between them, and the members after it. The items are
// written as they are, already JSON, so the body costs neither a second
// copy of the transcript nor a pass over it to validate and compact what
// the service encoded.
type requestBody struct {
	parts [][]byte
	size  int64
	// asksInclude is set when the body asks for "include".
	asksInclude bool
}

// Separators and the value written for an empty item, as encoding/json
// writes one.
var (
	comma = []byte(",")
	null  = []byte("null")
)

// newBody lays out `{"model":M,"<array>":[lead,items...],<rest of
// envelope>}`, where envelope is the request's other members, encoded as
// an object; lead may be nil.
func newBody(model, array string, lead []byte, items []json.RawMessage, envelope any) (*requestBody, error) {
	rest, err := json.Marshal(envelope)
	if err != nil || len(rest) < 2 || rest[0] != '{' {
		return nil, fmt.Errorf("encoding the request's members: %v", err)
	}
	tail := []byte{']'}
	if len(rest) > 2 {
		tail = append(append(tail, ','), rest[1:]...)
	} else {
		tail = append(tail, '}')
	}
	parts := make([][]byte, 0, 2*len(items)+3)
	parts = append(parts, fmt.Appendf(nil, `{"model":%s,%s:[`, mustMarshal(model), mustMarshal(array)))
	if lead != nil {
		parts = append(parts, lead)
	}
	for _, item := range items {
		if len(parts) > 1 {
			parts = append(parts, comma)
		}
		if len(item) == 0 {
			item = null
		}
		parts = append(parts, item)
	}
	parts = append(parts, tail)
	b := &requestBody{parts: parts}
	for _, p := range parts {
		b.size += int64(len(p))
	}
	return b, nil
}

// Len is the exact size of the body in bytes.
func (b *requestBody) Len() int64 { return b.size }

// reader returns a fresh reader of the whole body.
func (b *requestBody) reader() io.Reader {
	parts := net.Buffers(append([][]byte(nil), b.parts...))
	return &parts
}

// Bytes returns the body in one buffer; only tests need it whole.
func (b *requestBody) Bytes() []byte {
	var buf bytes.Buffer
	buf.Grow(int(b.size))
	_, _ = io.Copy(&buf, b.reader())
	return buf.Bytes()
}
