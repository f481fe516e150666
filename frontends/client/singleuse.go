package client

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"time"
)

// singleUse is an http.RoundTripper that makes each request on a
// connection of its own, dialled, written and read by the calling
// goroutine, and closed with the response body.
//
// A CLI command makes a request or two and exits. http.Transport's pool
// serves it no better, and the goroutines it starts for dialling, reading
// and writing cost a freshly started process more than the request itself
// (about 0.7 ms measured on the benchmark machine).
type singleUse struct {
	// answerWithin bounds the wait for the response's headers.
	answerWithin time.Duration
}

// RoundTrip sends req and returns its response; closing the response body
// closes the connection. Ending req's context ends the exchange.
func (t singleUse) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	d := net.Dialer{KeepAlive: -1} // one request: no keep-alive probes
	conn, err := d.DialContext(ctx, "tcp", req.URL.Host)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	// A deadline in the past wakes whatever reads or writes conn.
	cut := func() { conn.SetDeadline(time.Unix(1, 0)) }
	conn.SetDeadline(time.Now().Add(t.answerWithin))
	stop := context.AfterFunc(ctx, cut)
	fail := func(err error) (*http.Response, error) {
		stop()
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	// The hooks http.Transport would call tell the client how far the
	// exchange got, should the daemon go away meanwhile.
	trace := httptrace.ContextClientTrace(ctx)
	err = req.Write(conn)
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
	if err != nil {
		return fail(err)
	}
	var answer io.Reader = conn
	if trace != nil && trace.GotFirstResponseByte != nil {
		answer = &firstByte{Reader: conn, got: trace.GotFirstResponseByte}
	}
	resp, err := http.ReadResponse(bufio.NewReader(answer), req)
	if err != nil {
		return fail(err)
	}
	// The headers are in: the body may take its time (a stream does),
	// unless the context has ended meanwhile.
	if stop() {
		conn.SetDeadline(time.Time{})
		stop = context.AfterFunc(ctx, cut)
	}
	resp.Body = &connBody{ReadCloser: resp.Body, ctx: ctx, conn: conn, stop: stop}
	return resp, nil
}

// firstByte reads an answer and calls got once its first byte is in.
type firstByte struct {
	io.Reader
	got func()
}

// Read reads from the answer.
func (r *firstByte) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	if n > 0 && r.got != nil {
		r.got()
		r.got = nil
	}
	return n, err
}

// connBody is a response body that closes its connection with it.
type connBody struct {
	io.ReadCloser
	ctx  context.Context
	conn net.Conn
	stop func() bool
}

// Read reads the body; once the request's context has ended, a failed
// read reports the context's error rather than the deadline it set.
func (b *connBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil {
		err = b.ctx.Err()
	}
	return n, err
}

// Close closes the connection. The body itself is not closed: that would
// read the rest of it, which only a connection kept for reuse needs.
func (b *connBody) Close() error {
	b.stop()
	return b.conn.Close()
}
