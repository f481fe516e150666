package daemon

import (
	"log/slog"
	"net/http"
	"time"
)

// serverLimits bound what one connection may hold of the daemon. None of
// them bounds a request once its head and body are read: an event stream
// stays open for hours.
type serverLimits struct {
	// ReadHeader bounds the reading of a request's head.
	ReadHeader time.Duration
	// Read bounds the reading of a whole request, head and body. The
	// server lifts it once the body is read (or at once when there is
	// none), before the answer is written.
	Read time.Duration
	// Idle bounds how long a kept connection waits for its next request.
	Idle time.Duration
	// MaxConns caps the connections open at once (see connLimiter).
	MaxConns int
}

// readTimeout is the daemon's serverLimits.Read: a body of maxBody takes
// well under a second on the loopback.
const readTimeout = time.Minute

// defaultLimits are the daemon's limits.
func defaultLimits() serverLimits {
	return serverLimits{ReadHeader: 10 * time.Second, Read: readTimeout, Idle: 2 * time.Minute, MaxConns: defaultMaxConns()}
}

// newServer returns the HTTP server of handler within limits. It sets no
// WriteTimeout, which would end event streams.
func newServer(handler http.Handler, limits serverLimits, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: limits.ReadHeader,
		ReadTimeout:       limits.Read,
		IdleTimeout:       limits.Idle,
		ConnContext:       withConn,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
