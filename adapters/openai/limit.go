package openai

import (
	"fmt"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

// DefaultMaxReply caps one item of a reply (the answer, the reasoning,
// one call's arguments) and one stream event, in bytes. Hosted models
// stop far below it (the longest reply is about half a MiB of text); a
// reply that passes it comes from a runaway server, and is cut there.
// An endpoint's MaxReplyBytes may lower it.
const DefaultMaxReply = 8 << 20

// replyLimit is the cap on one reply item or stream event for ep.
func replyLimit(ep albedo.Endpoint) int {
	if ep.MaxReplyBytes > 0 && ep.MaxReplyBytes < DefaultMaxReply {
		return ep.MaxReplyBytes
	}
	return DefaultMaxReply
}

// replyCap keeps the items of one reply within the cap: each item at most
// item bytes, all of them together at most twice that, so that no number
// of items takes memory past a bound either. The first fragment that does
// not fit is cut there, and the reply fails with hit.
type replyCap struct {
	ep   albedo.Endpoint
	item int
	used int
	hit  error
}

// fit returns what of s an item that holds have bytes may add: all of it,
// or, once the cap is passed, the part that fits (cut at a character's
// start) and from then on nothing. what names the item for the error.
func (c *replyCap) fit(what string, have int, s string) string {
	if c.hit != nil {
		return ""
	}
	room := min(c.item-have, 2*c.item-c.used)
	if len(s) <= room {
		c.used += len(s)
		return s
	}
	s = validPrefix(s, max(room, 0))
	c.used += len(s)
	c.hit = capFailure(c.ep, c.item, what+" longer than")
	return s
}

// capFailure is the error of a reply cut at the cap of limit bytes.
func capFailure(ep albedo.Endpoint, limit int, what string) *albedo.Error {
	return failure(ep, map[string]any{"cap_bytes": limit},
		"sent %s the %s cap on one reply item or stream event; the reply was cut there",
		what, sizeText(limit))
}

// sizeText writes n bytes the way the cap is documented: in MiB when whole.
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}

// validPrefix returns the longest prefix of s of at most n bytes that does
// not cut a character.
func validPrefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
