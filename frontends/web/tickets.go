package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// maxTickets bounds the tickets waiting to be used: issuing one more
// forgets the one closest to its end.
const maxTickets = 64

// tickets are the one-time tickets issued and not yet used, by the
// SHA-256 of their value, with when each expires.
type tickets struct {
	mu      sync.Mutex
	waiting map[[sha256.Size]byte]time.Time
}

// issue makes a ticket valid until expires.
func (t *tickets) issue(now, expires time.Time) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a login ticket: %w", err)
	}
	value := hex.EncodeToString(b[:])
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting == nil {
		t.waiting = map[[sha256.Size]byte]time.Time{}
	}
	for k, end := range t.waiting {
		if !now.Before(end) {
			delete(t.waiting, k)
		}
	}
	if len(t.waiting) >= maxTickets {
		var soonest [sha256.Size]byte
		first := true
		for k, end := range t.waiting {
			if first || end.Before(t.waiting[soonest]) {
				soonest, first = k, false
			}
		}
		delete(t.waiting, soonest)
	}
	t.waiting[sha256.Sum256([]byte(value))] = expires
	return value, nil
}

// redeem uses ticket up: it reports whether the ticket was issued, not
// used before and not expired at now. A ticket is good once.
func (t *tickets) redeem(ticket string, now time.Time) bool {
	key := sha256.Sum256([]byte(ticket))
	t.mu.Lock()
	defer t.mu.Unlock()
	end, ok := t.waiting[key]
	delete(t.waiting, key)
	return ok && now.Before(end)
}

// clear forgets every ticket.
func (t *tickets) clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.waiting)
}
