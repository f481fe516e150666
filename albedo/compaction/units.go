package compaction

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/albedo-agent/albedo/albedo"
)

// UnitStarts returns the index in items of every user message: each
// starts a unit, the message and everything that answers it (reasoning,
// text, calls and their outputs). Restart notes and vent replies are user
// messages too, so they start units.
func UnitStarts(items []albedo.Item) []int {
	var starts []int
	for i, it := range items {
		if it.Kind == albedo.KindUser {
			starts = append(starts, i)
		}
	}
	return starts
}

// Fingerprint identifies the first users user messages of items: their
// sources and texts, hashed. It is "" when items has fewer.
func Fingerprint(items []albedo.Item, users int) string {
	h := sha256.New()
	n := 0
	for _, it := range items {
		if n == users {
			break
		}
		if it.Kind != albedo.KindUser {
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

// CutIndex returns the index in items where the tail of c begins (the
// first item after the summarised units), or false when c does not apply
// to items: no summary, a cut that would reach the newest unit, or a
// fingerprint that does not match.
func CutIndex(c albedo.Compaction, items []albedo.Item) (int, bool) {
	if c.Summary == "" || c.Users <= 0 {
		return 0, false
	}
	starts := UnitStarts(items)
	if c.Users >= len(starts) || Fingerprint(items, c.Users) != c.Fingerprint {
		return 0, false
	}
	return starts[c.Users], true
}
