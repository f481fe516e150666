package albedo

import (
	"encoding/json"
	"strings"
)

// EmptyTraceJSON is the JSON of a trace with nothing in it, as a result
// without a trace has.
const EmptyTraceJSON = `{"activities":null,"changes":null}`

// resultStatus returns the status of a cell result given as JSON. A
// result albedo encoded starts with its status; anything else is decoded.
func resultStatus(resultJSON string) string {
	const lead = `{"status":"`
	if rest, ok := strings.CutPrefix(resultJSON, lead); ok {
		if end := strings.IndexAny(rest, `"\`); end >= 0 && rest[end] == '"' {
			return rest[:end]
		}
	}
	var r struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal([]byte(resultJSON), &r)
	return r.Status
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
