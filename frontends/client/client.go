package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/home"
)

// Client talks to one daemon. It is a wire.Agent.
type Client struct {
	http *http.Client

	// mu guards conn and fallback.
	mu   sync.Mutex
	conn home.Connection
	// fallback finds a serving daemon when conn cannot be reached. Dial
	// sets it instead of asking the daemon daemon.json names whether it is
	// up, which would cost every command a round trip; it is dropped once
	// a request gets through.
	fallback func(ctx context.Context) (home.Connection, error)
}

var _ wire.Agent = (*Client)(nil)

// ErrNoAnswer is the error of a request the daemon accepted but did not
// answer within a minute: a daemon that hangs, which starting another
// would not cure (it holds the home's lock).
var ErrNoAnswer = errors.New("the albedo daemon took the request but did not answer within a minute (see daemon.log in the albedo home)")

// answerWithin is how long a client waits for the headers of an answer.
// Every route answers at once, or after stopping a turn or a kernel, which
// takes seconds; a daemon that takes longer hangs.
const answerWithin = time.Minute

// keepIdle is how long the client keeps an unused connection: less than
// the daemon's two minutes, so that it never sends a request on one the
// daemon is closing.
const keepIdle = 90 * time.Second

// New returns a client of the daemon described by conn.
func New(conn home.Connection) *Client {
	return &Client{
		http: &http.Client{Transport: &http.Transport{
			DisableCompression:    true,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       keepIdle,
			ResponseHeaderTimeout: answerWithin,
		}},
		conn: conn,
	}
}

// Connection returns how the client reaches its daemon.
func (c *Client) Connection() home.Connection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// Error is an error answer of the daemon.
type Error struct {
	Status  int
	Code    string
	Message string
	// Body is the whole error body.
	Body map[string]any
}

// Error returns the daemon's message.
func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d %s)", e.Message, e.Status, e.Code)
}

// ErrorCode returns the daemon's error code, which makes the error a
// wire.CodedError.
func (e *Error) ErrorCode() string { return e.Code }

// ifMatch is the header of a change made only at the revision etag names.
func ifMatch(etag string) map[string]string { return map[string]string{"If-Match": etag} }

// do sends a request and decodes a JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, body, out any, headers map[string]string) (http.Header, error) {
	resp, err := c.send(ctx, method, path, body, headers)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return nil, fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return resp.Header, nil
}

// send sends a request and returns a 2xx response for the caller to read.
func (c *Client) send(ctx context.Context, method, path string, body any, headers map[string]string) (*http.Response, error) {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("%s %s: encode body: %w", method, path, err)
		}
	}
	conn, fallback := c.target()
	resp, f, err := c.roundTrip(ctx, conn, method, path, data, headers)
	if err != nil && fallback != nil && resendable(method, f) {
		// No byte of it can have been processed, or it only reads: the
		// request can go to the daemon the fallback finds or starts.
		if conn, err = c.failOver(ctx, conn); err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, path, err)
		}
		resp, f, err = c.roundTrip(ctx, conn, method, path, data, headers)
	}
	if err != nil && f == unanswered && !resendable(method, f) {
		err = fmt.Errorf("%w (%v)", ErrMaybeDelivered, err)
	}
	if err != nil {
		var timeout net.Error
		if errors.As(err, &timeout) && timeout.Timeout() && ctx.Err() == nil {
			err = ErrNoAnswer
		}
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if fallback != nil {
		c.reached(conn)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		e := &Error{Status: resp.StatusCode}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(data, &e.Body) == nil {
			e.Message, _ = e.Body["error"].(string)
			e.Code, _ = e.Body["code"].(string)
		}
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		return nil, e
	}
	return resp, nil
}

// roundTrip sends one request to the daemon conn describes and, when it
// fails, says what became of it.
func (c *Client) roundTrip(ctx context.Context, conn home.Connection, method, path string, data []byte, headers map[string]string) (*http.Response, fate, error) {
	var r io.Reader
	if data != nil {
		r = bytes.NewReader(data)
	}
	var x exchange
	req, err := http.NewRequestWithContext(x.trace(ctx), method, "http://127.0.0.1:"+strconv.Itoa(conn.Port)+path, r)
	if err != nil {
		return nil, failed, err
	}
	req.Header.Set("Authorization", "Bearer "+conn.Token)
	if data != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, x.fate(err), err
	}
	return resp, failed, nil
}

// target returns the daemon to ask and the fallback, if any, for when it
// cannot be reached.
func (c *Client) target() (home.Connection, func(context.Context) (home.Connection, error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn, c.fallback
}

// failOver runs the fallback once for all the requests that found failed
// unreachable, and returns the daemon to ask instead.
func (c *Client) failOver(ctx context.Context, failed home.Connection) (home.Connection, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != failed || c.fallback == nil {
		return c.conn, nil // another request recovered already
	}
	conn, err := c.fallback(ctx)
	if err != nil {
		return failed, err
	}
	c.conn, c.fallback = conn, nil
	return conn, nil
}

// reached notes that the daemon conn describes answered: from now on the
// client has no fallback.
func (c *Client) reached(conn home.Connection) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == conn {
		c.fallback = nil
	}
}

// Health asks whether the daemon is up.
func (c *Client) Health(ctx context.Context) (wire.Health, error) {
	var h wire.Health
	_, err := c.do(ctx, http.MethodGet, "/health", nil, &h, nil)
	return h, err
}

// Shutdown asks the daemon to stop.
func (c *Client) Shutdown(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodPost, "/shutdown", struct{}{}, nil, nil)
	return err
}
