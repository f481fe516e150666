package postgres

import (
	"encoding/json"
	"fmt"
	"time"
)

// bin returns s as the value of a bytea column: its bytes, never nil (nil
// would be NULL).
func bin(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return []byte(s)
}

// nullBin returns s for a nullable bytea column: nil (NULL) when s is
// empty.
func nullBin(s string) any {
	if s == "" {
		return nil
	}
	return []byte(s)
}

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
	return b, nil
}

// parseNotes decodes a notes column; nil is NULL.
func parseNotes(col []byte) ([]string, error) {
	if len(col) == 0 {
		return nil, nil
	}
	var notes []string
	if err := json.Unmarshal(col, &notes); err != nil {
		return nil, fmt.Errorf("decode notes: %w", err)
	}
	return notes, nil
}

// millis returns t's Unix milliseconds, or now's when t is zero.
func millis(t, now time.Time) int64 {
	if t.IsZero() {
		t = now
	}
	return t.UnixMilli()
}
