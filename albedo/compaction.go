package albedo

import (
	"crypto/sha256"
	"encoding/hex"
)

// Compaction strategies: what made a session compact.
const (
	// CompactForced: the provider said the request did not fit its context.
	CompactForced = "forced"
	// CompactManual: someone ran /compact.
	CompactManual = "manual"
	// CompactAuto: the next request reached the trigger share of the
	// context window.
	CompactAuto = "auto"
)

// Compaction is a session's compaction state: a summary that stands in
// for the start of its transcript in model requests. The transcript itself
// never changes. The cut is counted in user messages, so that it means the
// same in both protocols and after a restart, and the fingerprint of those
// messages guards it: a state whose fingerprint no longer matches the
// transcript is discarded rather than sent.
type Compaction struct {
	SessionID string
	// Summary is the model's summary of the evicted history.
	Summary string
	// Users is how many user messages (and so units) the summary stands
	// in for, from the start of the transcript.
	Users int
	// Fingerprint identifies those user messages (see Fingerprint).
	Fingerprint string
	// Items is how many transcript items the summary stands in for.
	Items int
	// Strategy is CompactForced or CompactManual.
	Strategy string
	// At is the Unix time in milliseconds when the summary was made.
	At int64
}

// unitStarts returns the index in items of every user message: each
// starts a unit, the message and everything that answers it (reasoning,
// text, calls and their outputs). Restart notes and vent replies are user
// messages too, so they start units.
func UnitStarts(items []Item) []int {
	var starts []int
	for i, it := range items {
		if it.Kind == KindUser {
			starts = append(starts, i)
		}
	}
	return starts
}

// Fingerprint identifies the first users user messages of items: their
// sources and texts, hashed. It is "" when items has fewer.
func Fingerprint(items []Item, users int) string {
	h := sha256.New()
	n := 0
	for _, it := range items {
		if n == users {
			break
		}
		if it.Kind != KindUser {
			continue
		}
		h.Write([]byte(it.Source))
		h.Write([]byte{0})
		h.Write([]byte(it.Text))
		h.Write([]byte{0})
		n++
	}
	if n < users {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// cutIndex returns the index in items where the tail of c begins (the
// first item after the summarised units), or false when c does not apply
// to items: no summary, a cut that would reach the newest unit, or a
// fingerprint that does not match.
func (c Compaction) CutIndex(items []Item) (int, bool) {
	if c.Summary == "" || c.Users <= 0 {
		return 0, false
	}
	starts := UnitStarts(items)
	if c.Users >= len(starts) || Fingerprint(items, c.Users) != c.Fingerprint {
		return 0, false
	}
	return starts[c.Users], true
}
