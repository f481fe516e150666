package daemon

import (
	"container/list"
	"context"
	"net"
	"sync"
	"syscall"
)

// connLimiter is a listener that keeps at most max connections open, so
// that no number of connections exhausts the daemon's file descriptors.
// When it is full, a new connection takes the place of the oldest one that
// has not yet carried an authorised request (a stranger's, or one still
// sending its first request head); when every open connection has, the new
// one is closed at once. Connections of the daemon's own clients, which
// carry the token from their first request on, are never closed to make
// room.
type connLimiter struct {
	net.Listener
	max int

	mu   sync.Mutex
	open int
	// strangers holds the open connections that have carried no
	// authorised request, oldest first.
	strangers list.List
}

// limitConns caps the connections ln hands out at max.
func limitConns(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max}
}

// Accept returns the next connection, making room for it as the type
// says.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitedConn{Conn: c, limiter: l}
		l.mu.Lock()
		var evicted *limitedConn
		if l.open >= l.max {
			oldest := l.strangers.Front()
			if oldest == nil {
				l.mu.Unlock()
				c.Close()
				continue
			}
			evicted = oldest.Value.(*limitedConn)
		}
		l.open++
		lc.stranger = l.strangers.PushBack(lc)
		l.mu.Unlock()
		if evicted != nil {
			evicted.Close()
		}
		return lc, nil
	}
}

// release forgets a closed connection.
func (l *connLimiter) release(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.stranger != nil {
		l.strangers.Remove(c.stranger)
		c.stranger = nil
	}
	l.open--
}

// trust marks c as having carried an authorised request.
func (l *connLimiter) trust(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.stranger != nil {
		l.strangers.Remove(c.stranger)
		c.stranger = nil
	}
}

// limitedConn is a connection a connLimiter counts.
type limitedConn struct {
	net.Conn
	limiter *connLimiter
	// stranger is c's place among the limiter's strangers, nil once it
	// carried an authorised request or closed; guarded by limiter.mu.
	stranger *list.Element
	once     sync.Once
}

// Close closes the connection and gives its place back.
func (c *limitedConn) Close() error {
	c.once.Do(func() { c.limiter.release(c) })
	return c.Conn.Close()
}

// connKey is the context key under which a request finds its connection.
type connKey struct{}

// withConn is the http.Server's ConnContext: it lets the handler find the
// connection a request came on.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// trustConn marks the connection of a request that carried the token as
// one not to close to make room for others.
func trustConn(ctx context.Context) {
	if lc, ok := ctx.Value(connKey{}).(*limitedConn); ok {
		lc.limiter.trust(lc)
	}
}

// defaultMaxConns caps the daemon's connections at half its file
// descriptors (the other half is left to the store, kernels and model
// requests), between 64 and 4096.
func defaultMaxConns() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 512
	}
	return int(min(max(lim.Cur/2, 64), 4096))
}
