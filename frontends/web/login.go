package web

import (
	"crypto/rand"
	"fmt"
	"sync"
	"time"
)

// Lifetimes of what logs a browser in.
const (
	// TicketLife is how long a ticket stays good: long enough to open
	// the printed address, short enough that a copy found later is
	// worthless.
	TicketLife = time.Minute
	// CookieLife is how long a login lasts in a browser.
	CookieLife = 7 * 24 * time.Hour
)

// LoginOptions configure a Logins.
type LoginOptions struct {
	// Key signs the cookies; nil makes a random one that no other daemon
	// shares.
	Key []byte
	// NewKey makes and keeps a new key when every login is revoked; nil
	// makes a random one kept nowhere.
	NewKey func() ([]byte, error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Logins issues the tickets that log a browser in and the cookies that
// keep it in, and revokes them. It is safe for concurrent use.
type Logins struct {
	tickets tickets
	newKey  func() ([]byte, error)
	now     func() time.Time

	mu  sync.Mutex
	key []byte
}

// NewLogins returns the logins of opts.
func NewLogins(opts LoginOptions) (*Logins, error) {
	l := &Logins{newKey: opts.NewKey, now: opts.Now, key: opts.Key}
	if l.now == nil {
		l.now = time.Now
	}
	if l.newKey == nil {
		l.newKey = randomKey
	}
	if l.key == nil {
		key, err := randomKey()
		if err != nil {
			return nil, err
		}
		l.key = key
	}
	return l, nil
}

// randomKey returns a signing key kept nowhere.
func randomKey() ([]byte, error) {
	key := make([]byte, keyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("make the web page's key: %w", err)
	}
	return key, nil
}

// Ticket issues a one-time ticket and says when it expires.
func (l *Logins) Ticket() (string, time.Time, error) {
	now := l.now()
	expires := now.Add(TicketLife)
	t, err := l.tickets.issue(now, expires)
	return t, expires, err
}

// Redeem uses ticket up and returns the value of a new login cookie and
// when it expires; ok is false when the ticket was never issued, was used
// before or expired.
func (l *Logins) Redeem(ticket string) (cookie string, expires time.Time, ok bool, err error) {
	now := l.now()
	if !l.tickets.redeem(ticket, now) {
		return "", time.Time{}, false, nil
	}
	expires = now.Add(CookieLife)
	l.mu.Lock()
	key := l.key
	l.mu.Unlock()
	cookie, err = signCookie(key, expires)
	return cookie, expires, err == nil, err
}

// Valid reports whether cookie is a login cookie not revoked nor expired.
func (l *Logins) Valid(cookie string) bool {
	if cookie == "" {
		return false
	}
	l.mu.Lock()
	key := l.key
	l.mu.Unlock()
	return cookieValid(key, cookie, l.now())
}

// Revoke ends every login: the cookies issued so far are no longer
// valid, in this daemon and the next, and the tickets not yet used are
// forgotten.
func (l *Logins) Revoke() error {
	key, err := l.newKey()
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.key = key
	l.mu.Unlock()
	l.tickets.clear()
	return nil
}
