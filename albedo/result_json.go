package albedo

import (
	"encoding/json"
	"strings"
)

// EmptyTraceJSON is the JSON of a trace with nothing in it, as a result
// without a trace has.
const EmptyTraceJSON = `{"activities":null,"changes":null}`

// resultStatus returns the status of a cell result given as JSON. A
// result whose first member is its status, as albedo writes it, is read
// from its first bytes; anything else is decoded.
func resultStatus(resultJSON string) string {
	if status, ok := leadingStatus(resultJSON); ok {
		return status
	}
	var r struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal([]byte(resultJSON), &r)
	return r.Status
}

// leadingStatus reads {"status": "VALUE" at the start of s, whitespace
// allowed between the tokens, and reports whether it was there with a
// value free of escapes.
func leadingStatus(s string) (string, bool) {
	for _, token := range []string{"{", `"status"`, ":", `"`} {
		s = strings.TrimLeft(s, " \t\r\n")
		var ok bool
		if s, ok = strings.CutPrefix(s, token); !ok {
			return "", false
		}
	}
	end := strings.IndexAny(s, `"\`)
	if end < 0 || s[end] != '"' {
		return "", false
	}
	return s[:end], true
}

// decodeTrace decodes a trace given as JSON; an empty one, or one that is
// not a trace, has nothing in it.
func decodeTrace(traceJSON string) Trace {
	var t Trace
	if traceJSON == "" || traceJSON == EmptyTraceJSON || traceJSON == `{"activities":[],"changes":[]}` {
		return t
	}
	_ = json.Unmarshal([]byte(traceJSON), &t)
	return t
}
