package openai

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/albedo-agent/albedo/albedo"
)

// emptySchema stands in for a tool that declares no parameters.
const emptySchema = `{"type":"object","properties":{}}`

// parameters returns t's argument schema, or an empty object schema.
func parameters(t albedo.Tool) json.RawMessage {
	if len(t.Parameters) == 0 {
		return json.RawMessage(emptySchema)
	}
	return t.Parameters
}

// newCallID returns an id for a tool call whose provider sent none.
func newCallID() string {
	return "call_" + rand.Text()
}

// mustMarshal encodes values that cannot fail to encode: structs of
// strings and raw JSON that was already validated.
func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("openai: encoding " + err.Error())
	}
	return b
}

// decodeEvent decodes the JSON data of an event into v. Data that is not
// JSON fails the stream; a member of an unexpected type is logged and left
// out, since compatible providers differ in what they put in the fields
// albedo does not need.
func decodeEvent(ep albedo.Endpoint, log *slog.Logger, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typ):
		log.Warn("ignoring an event member of an unexpected type", "provider", ep.Provider, "error", err)
		return nil
	default:
		return failure(ep, nil, "sent a malformed event: %v", err)
	}
}
