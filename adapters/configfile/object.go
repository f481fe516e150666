package configfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object that keeps its members in order with their
// values as written, so that a rewrite changes only what it sets.
type object struct {
	keys   []string
	values map[string]json.RawMessage
}

// parseObject decodes a JSON object; blank data and null are an empty one.
func parseObject(data []byte) (*object, error) {
	o := &object{values: map[string]json.RawMessage{}}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", tok)
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		o.set(key, value)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return o, nil
}

// set sets key to value, keeping the key's place or adding it last.
func (o *object) set(key string, value json.RawMessage) {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = value
}

// setString sets key to the string s.
func (o *object) setString(key, s string) {
	o.set(key, quote(s))
}

// object returns the member key as an object, an empty one when it is
// missing or null.
func (o *object) object(key string) (*object, error) {
	sub, err := parseObject(o.values[key])
	if err != nil {
		return nil, fmt.Errorf("%q: %w", key, err)
	}
	return sub, nil
}

// setObject sets key to sub.
func (o *object) setObject(key string, sub *object) error {
	b, err := sub.MarshalJSON()
	if err != nil {
		return err
	}
	o.set(key, b)
	return nil
}

// MarshalJSON encodes the object with its members in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(quote(k))
		b.WriteByte(':')
		b.Write(o.values[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// quote encodes s as a JSON string, leaving <, > and & as they are.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
