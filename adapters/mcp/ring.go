package mcp

import "sync"

// ring keeps the last bytes written to it: a server's stderr, which may
// run for days.
type ring struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

// newRing returns a ring keeping the last limit bytes.
func newRing(limit int) *ring { return &ring{limit: limit} }

// Write keeps the end of p and of what came before; it never fails.
func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.limit; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(p), nil
}

// String returns the bytes kept.
func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf)
}
