package openai

import (
	"bytes"
	"encoding/json"
)

// completeMessage returns a Responses output message as received, with the
// members the published schema requires of it when sent back and that some
// compatible servers leave out: "status" ("completed"), and "annotations"
// and "logprobs" (empty) on each output_text part. A message that has them
// all, as OpenAI's do, comes back unchanged; so does anything unreadable.
func completeMessage(raw json.RawMessage) json.RawMessage {
	// A quote followed by a colon only occurs after a member name (inside
	// a string the quote would be escaped), so this finds the members
	// without decoding; a message that spaces its colons is decoded.
	if bytes.Contains(raw, []byte(`"status":`)) && bytes.Contains(raw, []byte(`"logprobs":`)) && bytes.Contains(raw, []byte(`"annotations":`)) {
		return raw
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(raw, &msg) != nil {
		return raw
	}
	if _, ok := msg["status"]; !ok {
		msg["status"] = json.RawMessage(`"completed"`)
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal(msg["content"], &parts) == nil {
		for _, part := range parts {
			if string(part["type"]) != `"output_text"` {
				continue
			}
			for _, key := range []string{"annotations", "logprobs"} {
				if _, ok := part[key]; !ok {
					part[key] = json.RawMessage(`[]`)
				}
			}
		}
		msg["content"] = mustMarshal(parts)
	}
	return mustMarshal(msg)
}

// withoutID returns the JSON object raw without its top-level "id"
// member, the rest byte for byte as it was; raw itself when it has none
// or is not an object.
func withoutID(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`"id"`)) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return raw
	}
	for first := true; dec.More(); first = false {
		start := dec.InputOffset() // after '{', or before the comma that leads the member
		key, err := dec.Token()
		if err != nil {
			return raw
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return raw
		}
		if key != "id" {
			continue
		}
		end := int(dec.InputOffset())
		if first {
			// The comma after the first member goes with it.
			rest := bytes.TrimLeft(raw[end:], " \t\r\n")
			if len(rest) > 0 && rest[0] == ',' {
				end = len(raw) - len(rest) + 1
			}
		}
		out := append([]byte(nil), raw[:start]...)
		return append(out, raw[end:]...)
	}
	return raw
}
