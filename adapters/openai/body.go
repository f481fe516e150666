package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// requestBody is the body of one model request.
type requestBody struct {
	data []byte
	// asksInclude is set when the body asks for "include".
	asksInclude bool
}

// newBody lays out `{"model":M,"<array>":[lead,items...],<rest of
// envelope>}`, where envelope is the request's other members, encoded as
// an object; lead may be nil. The items (the input items as the service
// projected them) are written as they are, already JSON, and an empty one
// as null.
func newBody(model, array string, lead []byte, items []json.RawMessage, envelope any) (*requestBody, error) {
	rest, err := json.Marshal(envelope)
	if err != nil || len(rest) < 2 || rest[0] != '{' {
		return nil, fmt.Errorf("encoding the request's members: %v", err)
	}
	values := items
	if lead != nil {
		values = append([]json.RawMessage{lead}, items...)
	}
	b := fmt.Appendf(nil, `{"model":%s,%s:[`, mustMarshal(model), mustMarshal(array))
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		b = append(b, v...)
	}
	b = append(b, ']')
	if len(rest) > 2 {
		b = append(append(b, ','), rest[1:]...)
	} else {
		b = append(b, '}')
	}
	return &requestBody{data: b}, nil
}

// Len is the size of the body in bytes.
func (b *requestBody) Len() int64 { return int64(len(b.data)) }

// reader returns a fresh reader of the whole body.
func (b *requestBody) reader() io.Reader { return bytes.NewReader(b.data) }

// Bytes returns the body.
func (b *requestBody) Bytes() []byte { return b.data }
