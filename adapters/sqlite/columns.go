package sqlite

import (
	"encoding/json"
	"fmt"
)

// notesArg returns the JSON of notes for a nullable column: nil when there
// are none.
func notesArg(notes []string) (any, error) {
	if len(notes) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(notes)
	if err != nil {
		return nil, fmt.Errorf("encode notes: %w", err)
	}
	return string(b), nil
}

// parseNotes decodes a notes column; "" is NULL.
func parseNotes(col string) ([]string, error) {
	if col == "" {
		return nil, nil
	}
	var notes []string
	if err := json.Unmarshal([]byte(col), &notes); err != nil {
		return nil, fmt.Errorf("decode notes: %w", err)
	}
	return notes, nil
}

// textArg returns s for a nullable column: nil when s is empty.
func textArg(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// asString returns the text a column scanned into an any holds: "" for
// NULL.
func asString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// asInt returns the integer a column scanned into an any holds: 0 for NULL.
func asInt(v any) int64 {
	n, _ := v.(int64)
	return n
}
