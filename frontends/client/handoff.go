package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// ErrMaybeDelivered is the error of a write (a message, a new session, a
// fork) whose daemon went away after the whole request was sent and before
// any byte of the answer came back: the daemon may have recorded it or
// not, so the client does not send it again.
var ErrMaybeDelivered = errors.New("the albedo daemon stopped after it was sent the request and before it answered, so whether it took effect is unknown; it was not sent again")

// fate is what became of a request that got no answer.
type fate int

const (
	// failed is any other failure: it is reported as it is.
	failed fate = iota
	// unsent means no byte of the request can have been processed: the
	// connection was refused, or it broke before the request was written.
	unsent
	// unanswered means the whole request was written and the connection
	// broke (reset or closed) before any byte of the answer.
	unanswered
)

// exchange watches one request on its way: whether it was written whole
// and whether a byte of its answer came back.
type exchange struct {
	wrote, answered atomic.Bool
}

// trace returns ctx with hooks that record the exchange, which
// http.Transport calls.
func (x *exchange) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				x.wrote.Store(true)
			}
		},
		GotFirstResponseByte: func() { x.answered.Store(true) },
	})
}

// fate says what became of the request that failed with err. A request
// not written whole cannot have been processed, whatever broke the write;
// one written whole whose answer never began may have been.
func (x *exchange) fate(err error) fate {
	var timeout net.Error
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return failed
	case errors.As(err, &timeout) && timeout.Timeout():
		return failed
	case refused(err), !x.wrote.Load() && !x.answered.Load():
		return unsent
	case x.answered.Load():
		return failed
	}
	return unanswered
}

// refused says whether err means no connection could be made.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// resendable says whether a request that reached a dying daemon may be
// sent again to the next one: reads may; a write only when unsent.
func resendable(method string, f fate) bool {
	switch f {
	case unsent:
		return true
	case unanswered:
		return method == http.MethodGet || method == http.MethodHead
	}
	return false
}
